#include "sim/engine/collectives/RingAllGather.hpp"

namespace gpuscale::engine {

RingPlan ring_all_gather_plan(double bytes)
{
  return {{RingPhase::Scope::Whole, 1, bytes}};
}

} // namespace gpuscale::engine
