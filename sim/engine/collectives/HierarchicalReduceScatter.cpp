#include "sim/engine/collectives/HierarchicalReduceScatter.hpp"

#include "sim/engine/collectives/RingReduceScatter.hpp"

namespace gpuscale::engine {

RingPlan hierarchical_reduce_scatter_plan(const CommunicatorShape& comm, double bytes)
{
  if (!comm.hierarchical)
    return ring_reduce_scatter_plan(bytes);
  const double per_node = static_cast<double>(comm.per_node);
  return {{RingPhase::Scope::Locals, 1, bytes}, {RingPhase::Scope::Crosses, 1, bytes / per_node}};
}

} // namespace gpuscale::engine
