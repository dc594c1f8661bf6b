#include "sim/engine/collectives/HierarchicalAllGather.hpp"

#include "sim/engine/collectives/RingAllGather.hpp"

namespace gpuscale::engine {

RingPlan hierarchical_all_gather_plan(const CommunicatorShape& comm, double bytes)
{
  if (!comm.hierarchical)
    return ring_all_gather_plan(bytes);
  const double per_node = static_cast<double>(comm.per_node);
  return {{RingPhase::Scope::Crosses, 1, bytes / per_node}, {RingPhase::Scope::Locals, 1, bytes}};
}

} // namespace gpuscale::engine
