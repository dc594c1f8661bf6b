#include "sim/engine/collectives/RingAllGather.hpp"

namespace gpuscale::engine {

void ring_all_gather(const Communicator& comm, int rank, double bytes, Granularity granularity,
                     CollectiveCounters& counters)
{
  const int p = comm.size();
  ring_steps(comm, rank, p - 1, bytes / p, granularity, counters);
}

} // namespace gpuscale::engine
