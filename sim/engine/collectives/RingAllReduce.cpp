#include "sim/engine/collectives/RingAllReduce.hpp"

namespace gpuscale::engine {

RingPlan ring_all_reduce_plan(double bytes)
{
  return {{RingPhase::Scope::Whole, 2, bytes}};
}

} // namespace gpuscale::engine
