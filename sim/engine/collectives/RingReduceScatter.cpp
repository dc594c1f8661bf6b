#include "sim/engine/collectives/RingReduceScatter.hpp"

namespace gpuscale::engine {

void ring_reduce_scatter(const Communicator& comm, int rank, double bytes, Granularity granularity,
                         CollectiveCounters& counters)
{
  const int p = comm.size();
  ring_steps(comm, rank, p - 1, bytes / p, granularity, counters);
}

} // namespace gpuscale::engine
