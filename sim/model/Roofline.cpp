#include "sim/model/Roofline.hpp"

#include <algorithm>

namespace gpuscale::model {

double Roofline::time_s(const KernelWork& kernel) const
{
  return std::max(kernel.flop / flop_per_s, kernel.bytes / bytes_per_s);
}

bool Roofline::memory_limited(const KernelWork& kernel) const
{
  return kernel.bytes / bytes_per_s > kernel.flop / flop_per_s;
}

PeakRates peak_rates_of(const GpuType& gpu, Precision precision)
{
  return {gpu.peak_for(precision).value_or(0.0), gpu.memory_bw_Bps};
}

} // namespace gpuscale::model
