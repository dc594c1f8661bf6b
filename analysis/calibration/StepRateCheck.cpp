#include "analysis/calibration/StepRateCheck.hpp"

#include "analysis/calibration/CrossValidation.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gpuscale::analysis {

StepRateCheck check_step_rates(const std::vector<CalibrationCase>& cases)
{
  StepRateCheck check;
  std::map<std::pair<model::Benchmark, bool>, std::vector<double>> errors;
  std::map<std::pair<model::Benchmark, std::string>, std::vector<double>> by_family; // one node
  const auto median = [](std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return interpolated_quantile(values, 0.5);
  };
  for (const auto& c : cases) {
    const double step_s = std::max(c.iteration_s, c.host_limit_s);
    if (!(c.logged_rate_samples_per_s > 0) || !(step_s > 0) || c.global_batch_size <= 0)
      continue;
    StepRateResult r;
    r.key = c.key();
    r.family = c.family;
    r.benchmark = c.benchmark;
    r.accelerators = c.accelerators;
    r.nodes = c.nodes;
    r.logged_samples_per_s = c.logged_rate_samples_per_s;
    r.simulated_samples_per_s = c.global_batch_size / step_s;
    r.error_pct = 100.0 * (r.simulated_samples_per_s / r.logged_samples_per_s - 1.0);
    errors[{c.benchmark, c.nodes > 1}].push_back(r.error_pct);
    if (c.nodes <= 1)
      by_family[{c.benchmark, c.family}].push_back(r.error_pct);
    check.results.push_back(r);
  }
  for (const auto& [group, values] : errors) {
    std::vector<double> absolute;
    for (double v : values)
      absolute.push_back(std::abs(v));
    check.groups.push_back(
        {group.first, group.second, static_cast<int>(values.size()), median(values), median(absolute)});
  }
  for (const auto& [group, values] : by_family)
    check.families.push_back({group.first, group.second, static_cast<int>(values.size()), median(values)});
  std::sort(check.results.begin(), check.results.end(),
            [](const StepRateResult& a, const StepRateResult& b) { return a.error_pct < b.error_pct; });
  return check;
}

} // namespace gpuscale::analysis
