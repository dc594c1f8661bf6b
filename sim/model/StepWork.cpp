#include "sim/model/StepWork.hpp"

namespace gpuscale::model {

double StepWork::flop_limited_s(const Efficiency& efficiency) const
{
  const double p = peak_flop_per_s * efficiency.compute;
  const double h = memory_bw_Bps * efficiency.memory;
  double seconds = flop_bound_flop / p;
  for (const auto& k : memory_kernels)
    if (k.flop * h >= k.bytes * p)
      seconds += k.count * k.flop / p;
  return seconds;
}

double StepWork::memory_limited_s(const Efficiency& efficiency) const
{
  const double p = peak_flop_per_s * efficiency.compute;
  const double h = memory_bw_Bps * efficiency.memory;
  double seconds = optimizer_bytes / h;
  for (const auto& k : memory_kernels)
    if (k.flop * h < k.bytes * p)
      seconds += k.count * k.bytes / h;
  return seconds;
}

double StepWork::busy_time_s(const Efficiency& efficiency) const
{
  return flop_limited_s(efficiency) + memory_limited_s(efficiency);
}

} // namespace gpuscale::model
