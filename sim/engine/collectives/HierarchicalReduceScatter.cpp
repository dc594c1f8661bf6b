#include "sim/engine/collectives/HierarchicalReduceScatter.hpp"

#include "sim/engine/collectives/RingReduceScatter.hpp"

namespace gpuscale::engine {

void hierarchical_reduce_scatter(const Communicator& comm, int rank, double bytes, Granularity granularity,
                                 CollectiveCounters& counters)
{
  if (!comm.hierarchical()) {
    ring_reduce_scatter(comm, rank, bytes, granularity, counters);
    return;
  }
  const auto local = comm.local_of[static_cast<std::size_t>(rank)];
  const auto cross = comm.cross_of[static_cast<std::size_t>(rank)];
  const Communicator& node = comm.locals[static_cast<std::size_t>(local.group)];
  ring_reduce_scatter(node, local.rank, bytes, granularity, counters);
  ring_reduce_scatter(comm.crosses[static_cast<std::size_t>(cross.group)], cross.rank, bytes / node.size(), granularity,
                      counters);
}

} // namespace gpuscale::engine
