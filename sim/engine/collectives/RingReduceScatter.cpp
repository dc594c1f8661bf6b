#include "sim/engine/collectives/RingReduceScatter.hpp"

namespace gpuscale::engine {

RingPlan ring_reduce_scatter_plan(double bytes)
{
  return {{RingPhase::Scope::Whole, 1, bytes}};
}

} // namespace gpuscale::engine
