#include "analysis/calibration/CrossValidation.hpp"

#include "analysis/calibration/CalibrationFit.hpp"
#include "sim/model/SoftwareTrend.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace gpuscale::analysis {
double interpolated_quantile(const std::vector<double>& sorted, double q)
{
  if (sorted.empty())
    return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(sorted.size() - 1, below + 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

std::vector<double> refit_folds(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                const std::vector<ValidationFold>& folds, const std::vector<double>& start)
{
  std::vector<double> predicted(cases.size(), 0.0);
  for (const auto& fold : folds) {
    const auto& use = fold.train;
    if (fold.predicted.empty() || std::none_of(use.begin(), use.end(), [](bool u) { return u; }))
      continue;
    // Parameters only the left-out cases inform get no data: they stay at the space's neutral start
    // (generation factor 1: the catalog datasheet alone), not at the full fit's value.
    std::vector<double> warm = start;
    // The reference date and the benchmarks' own trends as the training cases alone decide them.
    const ParameterSpace fold_space =
        space.for_training(cases, use).with_convergence_basis(space.convergence_basis(), cases, use);
    const auto neutral = fold_space.start();
    const auto repeats = fold_space.trend_repeat_groups(cases, use); // what measures a trend
    for (std::size_t j = 0; j < fold_space.size(); ++j) {
      const auto& p = fold_space.parameters()[j];
      bool informed = false;
      for (std::size_t i = 0; i < cases.size() && !informed; ++i) {
        if (!use[i])
          continue;
        const auto& c = cases[i];
        switch (p.group) {
          case ParameterSpace::Group::Compute:
          case ParameterSpace::Group::Memory:
          case ParameterSpace::Group::Overhead:
          case ParameterSpace::Group::StepOverhead: informed = p.benchmark == c.benchmark; break;
          case ParameterSpace::Group::Generation: informed = c.generation == p.label; break;
          case ParameterSpace::Group::Network: informed = c.scale_up_link == p.label; break;
          case ParameterSpace::Group::SoftwareTrend: informed = false; break; // by the repeats, below

        }
      }
      if (p.group == ParameterSpace::Group::SoftwareTrend)
        for (const auto& group : repeats)
          informed = informed || p.label == model::kPooledSoftwareTrend || // measured on every benchmark's repeats
                     fold_space.trend_label(cases[group.front()].benchmark) == p.label;
      if (!informed)
        warm[j] = neutral[j];
    }
    const auto fit = fit_calibration(fold_space, cases, use, warm, false);
    for (std::size_t i : fold.predicted)
      predicted[i] = fold_space.predict_s(cases[i], fit.x);
  }
  return predicted;
}

std::vector<double> leave_group_out(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                    const std::function<std::string(const CalibrationCase&)>& group_of,
                                    const std::vector<double>& start)
{
  return refit_folds(space, cases, group_folds(cases, group_of), start);
}

std::vector<double> left_out_s(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                     ValidationMode mode, const std::vector<double>& start)
{
  return refit_folds(space, cases, validation_folds(mode, cases), start);
}

LeftOutSeconds left_out_s_by_mode(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                        const std::vector<double>& start)
{
  LeftOutSeconds predicted_s;
  for (auto mode : all_validation_modes())
    predicted_s[mode] = left_out_s(space, cases, mode, start);
  return predicted_s;
}

double absolute_percentage_error(double predicted, double actual)
{
  return std::abs(predicted - actual) / actual * 100.0;
}

ErrorSummary summarise_errors(std::vector<double> ape_pct)
{
  ErrorSummary summary;
  summary.count = static_cast<int>(ape_pct.size());
  if (ape_pct.empty())
    return summary;
  std::sort(ape_pct.begin(), ape_pct.end());
  summary.median_pct = interpolated_quantile(ape_pct, 0.5);
  summary.p90_pct = interpolated_quantile(ape_pct, 0.9);
  summary.mean_pct = std::accumulate(ape_pct.begin(), ape_pct.end(), 0.0) / static_cast<double>(ape_pct.size());
  return summary;
}

} // namespace gpuscale::analysis
