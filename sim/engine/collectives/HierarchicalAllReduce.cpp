#include "sim/engine/collectives/HierarchicalAllReduce.hpp"

#include "sim/engine/collectives/RingAllReduce.hpp"

namespace gpuscale::engine {

RingPlan hierarchical_all_reduce_plan(const Communicator& comm, double bytes)
{
  if (!comm.hierarchical())
    return ring_all_reduce_plan(bytes);
  const double per_node = static_cast<double>(comm.locals.front().size());
  return {{RingPhase::Scope::Locals, 1, bytes},
          {RingPhase::Scope::Crosses, 2, bytes / per_node},
          {RingPhase::Scope::Locals, 1, bytes}};
}

} // namespace gpuscale::engine
