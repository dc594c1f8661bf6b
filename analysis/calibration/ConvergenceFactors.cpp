#include "analysis/calibration/ConvergenceFactors.hpp"

#include "analysis/calibration/CrossValidation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace gpuscale::analysis {

std::vector<model::ConvergenceFactor> measure_convergence_factors(const std::vector<CalibrationCase>& cases,
                                                                  const std::vector<bool>& use)
{
  // Keyed (benchmark, batch): batch 0 collects every result of the benchmark.
  std::map<std::pair<model::Benchmark, int>, std::vector<double>> log_ratios;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    if ((!use.empty() && !use[i]) || !c.has_convergence_ratio())
      continue;
    const double log_ratio = std::log(c.convergence_ratio());
    log_ratios[{c.benchmark, 0}].push_back(log_ratio);
    log_ratios[{c.benchmark, c.global_batch_size}].push_back(log_ratio);
  }
  std::vector<model::ConvergenceFactor> factors;
  for (auto& [key, logs] : log_ratios) {
    const auto& [benchmark, batch] = key;
    if (batch > 0 && static_cast<int>(logs.size()) < model::kConvergenceFactorMinResults)
      continue;
    std::sort(logs.begin(), logs.end());
    const double factor = std::clamp(std::exp(interpolated_quantile(logs, 0.5)), model::kConvergenceFactorRange.lower,
                                     model::kConvergenceFactorRange.upper);
    factors.push_back({benchmark, batch, factor, static_cast<int>(logs.size())});
  }
  return factors;
}

} // namespace gpuscale::analysis
