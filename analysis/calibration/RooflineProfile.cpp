#include "analysis/calibration/RooflineProfile.hpp"

#include <algorithm>
#include <functional>

namespace gpuscale::analysis {

RooflineProfile::RooflineProfile(const model::StepWork& work)
    : peak_flop_per_s_(work.peak_flop_per_s), memory_bw_Bps_(work.memory_bw_Bps),
      flop_bound_flop_(work.flop_bound_flop), optimizer_bytes_(work.optimizer_bytes), fixed_s_(work.fixed_s)
{
  auto kernels = work.memory_kernels;
  std::sort(kernels.begin(), kernels.end(),
            [](const auto& a, const auto& b) { return a.flop * b.bytes > b.flop * a.bytes; });
  const std::size_t n = kernels.size();
  intensity_.resize(n);
  flop_prefix_.assign(n + 1, 0.0);
  byte_suffix_.assign(n + 1, 0.0);
  for (std::size_t k = 0; k < n; ++k) {
    intensity_[k] = kernels[k].flop / kernels[k].bytes;
    flop_prefix_[k + 1] = flop_prefix_[k] + kernels[k].count * kernels[k].flop;
  }
  for (std::size_t k = n; k-- > 0;)
    byte_suffix_[k] = byte_suffix_[k + 1] + kernels[k].count * kernels[k].bytes;
}

double RooflineProfile::busy_time_s(double compute_efficiency, double memory_efficiency) const
{
  model::Efficiency efficiency;
  efficiency.compute = compute_efficiency;
  efficiency.memory = memory_efficiency;
  const model::Roofline roof = model::PeakRates{peak_flop_per_s_, memory_bw_Bps_}.at(efficiency);
  const double p = roof.flop_per_s;
  const double h = roof.bytes_per_s;
  const double threshold = roof.ridge_intensity();
  // first kernel whose intensity is below the threshold: it and the rest are memory-limited
  const auto split = static_cast<std::size_t>(
      std::upper_bound(intensity_.begin(), intensity_.end(), threshold, std::greater<double>()) - intensity_.begin());
  return (flop_bound_flop_ + flop_prefix_[split]) / p + (byte_suffix_[split] + optimizer_bytes_) / h + fixed_s_;
}

} // namespace gpuscale::analysis
