#include "sim/engine/collectives/HierarchicalAllGather.hpp"

#include "sim/engine/collectives/RingAllGather.hpp"

namespace gpuscale::engine {

void hierarchical_all_gather(const Communicator& comm, int rank, double bytes, Granularity granularity,
                             CollectiveCounters& counters)
{
  if (!comm.hierarchical()) {
    ring_all_gather(comm, rank, bytes, granularity, counters);
    return;
  }
  const auto local = comm.local_of[static_cast<std::size_t>(rank)];
  const auto cross = comm.cross_of[static_cast<std::size_t>(rank)];
  const Communicator& node = comm.locals[static_cast<std::size_t>(local.group)];
  ring_all_gather(comm.crosses[static_cast<std::size_t>(cross.group)], cross.rank, bytes / node.size(), granularity,
                  counters);
  ring_all_gather(node, local.rank, bytes, granularity, counters);
}

} // namespace gpuscale::engine
