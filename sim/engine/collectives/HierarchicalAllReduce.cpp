#include "sim/engine/collectives/HierarchicalAllReduce.hpp"

#include "sim/engine/collectives/RingAllReduce.hpp"

namespace gpuscale::engine {

RingPlan hierarchical_all_reduce_plan(const Communicator& comm, double bytes, bool as_nccl_auto)
{
  if (!comm.hierarchical())
    return ring_all_reduce_plan(bytes);
  const double per_node = static_cast<double>(comm.locals.front().size());
  RingPhase cross{RingPhase::Scope::Crosses, 2, bytes / per_node};
  if (as_nccl_auto) {
    cross.in_network = comm.in_network_reduction;
    cross.tree_latency = !comm.in_network_reduction;
  }
  return {{RingPhase::Scope::Locals, 1, bytes}, cross, {RingPhase::Scope::Locals, 1, bytes}};
}

} // namespace gpuscale::engine
