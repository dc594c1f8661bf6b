#include "sim/engine/collectives/RingAllReduce.hpp"

namespace gpuscale::engine {

void ring_all_reduce(const Communicator& comm, int rank, double bytes, Granularity granularity,
                     CollectiveCounters& counters)
{
  const int p = comm.size();
  ring_steps(comm, rank, 2 * (p - 1), bytes / p, granularity, counters);
}

} // namespace gpuscale::engine
