#include "sim/engine/collectives/InSwitchAllReduce.hpp"

namespace gpuscale::engine {

RingPlan in_switch_all_reduce_plan(double bytes)
{
  RingPhase phase{RingPhase::Scope::Whole, 1, bytes};
  phase.in_network = true;
  return {phase};
}

} // namespace gpuscale::engine
