#include "sim/engine/collectives/InSwitchAllReduce.hpp"

namespace gpuscale::engine {

RingPlan in_switch_all_reduce_plan(double bytes, int gpus, double nvls_wire_factor)
{
  RingPhase phase{RingPhase::Scope::Whole, 1, bytes};
  phase.in_network = true;
  phase.wire_bytes_factor = (1.0 + 1.0 / gpus) * nvls_wire_factor;
  return {phase};
}

} // namespace gpuscale::engine
