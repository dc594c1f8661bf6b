#include "analysis/frontier/EnergyModel.hpp"

#include "analysis/frontier/TimeMetric.hpp"

#include <algorithm>

namespace gpuscale::analysis {

double EnergyModel::power_per_gpu_w(const results::RunRecord& run) const
{
  const double utilisation = run.iter_time_s > 0 ? std::clamp(run.compute_time_s / run.iter_time_s, 0.0, 1.0) : 0.0;
  const double idle_w = idle_fraction * run.tdp_w;
  return idle_w + (run.tdp_w - idle_w) * utilisation;
}

double EnergyModel::energy_j(const results::RunRecord& run) const
{
  return static_cast<double>(run.gpus) * power_per_gpu_w(run) * time_s(run);
}

} // namespace gpuscale::analysis
