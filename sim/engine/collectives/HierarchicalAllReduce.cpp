#include "sim/engine/collectives/HierarchicalAllReduce.hpp"

#include "sim/engine/collectives/RingAllReduce.hpp"

namespace gpuscale::engine {

RingPlan hierarchical_all_reduce_plan(const CommunicatorShape& comm, double bytes, CrossPhase cross_phase)
{
  if (!comm.hierarchical)
    return ring_all_reduce_plan(bytes);
  const double per_node = static_cast<double>(comm.per_node);
  RingPhase cross{RingPhase::Scope::Crosses, 2, bytes / per_node};
  cross.in_network = cross_phase == CrossPhase::InNetwork;
  cross.tree_latency = cross_phase == CrossPhase::TreeLatency;
  return {{RingPhase::Scope::Locals, 1, bytes}, cross, {RingPhase::Scope::Locals, 1, bytes}};
}

} // namespace gpuscale::engine
