#include "sim/engine/collectives/HierarchicalAllReduce.hpp"

#include "sim/engine/collectives/RingAllGather.hpp"
#include "sim/engine/collectives/RingAllReduce.hpp"
#include "sim/engine/collectives/RingReduceScatter.hpp"

namespace gpuscale::engine {

void hierarchical_all_reduce(const Communicator& comm, int rank, double bytes, Granularity granularity,
                             CollectiveCounters& counters)
{
  if (!comm.hierarchical()) {
    ring_all_reduce(comm, rank, bytes, granularity, counters);
    return;
  }
  const auto local = comm.local_of[static_cast<std::size_t>(rank)];
  const auto cross = comm.cross_of[static_cast<std::size_t>(rank)];
  const Communicator& node = comm.locals[static_cast<std::size_t>(local.group)];
  const Communicator& rail = comm.crosses[static_cast<std::size_t>(cross.group)];
  ring_reduce_scatter(node, local.rank, bytes, granularity, counters);
  ring_all_reduce(rail, cross.rank, bytes / node.size(), granularity, counters);
  ring_all_gather(node, local.rank, bytes, granularity, counters);
}

} // namespace gpuscale::engine
