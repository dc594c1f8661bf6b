#include "sim/model/StepWork.hpp"

namespace gpuscale::model {

double StepWork::flop_limited_s(const Efficiency& efficiency) const
{
  const Roofline roof = roofline(efficiency);
  double seconds = flop_bound_flop / roof.flop_per_s;
  for (const auto& k : memory_kernels)
    if (!roof.memory_limited({k.flop, k.bytes}))
      seconds += k.count * k.flop / roof.flop_per_s;
  return seconds;
}

double StepWork::memory_limited_s(const Efficiency& efficiency) const
{
  const Roofline roof = roofline(efficiency);
  double seconds = optimizer_bytes / roof.bytes_per_s;
  for (const auto& k : memory_kernels)
    if (roof.memory_limited({k.flop, k.bytes}))
      seconds += k.count * k.bytes / roof.bytes_per_s;
  return seconds;
}

double StepWork::busy_time_s(const Efficiency& efficiency) const
{
  return flop_limited_s(efficiency) + memory_limited_s(efficiency) + fixed_s;
}

} // namespace gpuscale::model
