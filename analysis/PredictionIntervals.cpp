#include "analysis/PredictionIntervals.hpp"

#include "analysis/CrossValidation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gpuscale::analysis {
namespace {

constexpr double kLowQuantile = (1.0 - model::kIntervalLevel) / 2.0;  // 0.1
constexpr double kHighQuantile = (1.0 + model::kIntervalLevel) / 2.0; // 0.9

/// Left-out predictions of the cases `group_of` puts in group "held_out", by a fit on the others.
std::vector<double> held_out_minutes(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                     const std::function<bool(const CalibrationCase&)>& held_out,
                                     const std::vector<double>& fit_x)
{
  return leave_group_out(
      space, cases, [&](const CalibrationCase& c) { return std::string(held_out(c) ? "held_out" : "kept"); }, fit_x);
}

double log_residual(const CalibrationCase& c, double predicted_minutes)
{
  return std::log(c.actual_minutes / predicted_minutes);
}

} // namespace

std::vector<ModeResiduals> validation_mode_residuals(const ParameterSpace& space,
                                                     const std::vector<CalibrationCase>& cases,
                                                     const std::vector<double>& fit_x,
                                                     const std::vector<double>& loso_minutes,
                                                     const std::vector<double>& lofo_minutes)
{
  using model::PredictionRegime;
  std::map<std::string, std::set<std::string>> families_of_generation;
  for (const auto& c : cases)
    families_of_generation[c.generation].insert(c.family);
  std::string latest_round;
  for (const auto& c : cases)
    latest_round = std::max(latest_round, c.round); // "v3.0" < "v3.1" < "v4.0" < "v4.1"
  const auto beyond = held_out_minutes(
      space, cases, [](const CalibrationCase& c) { return c.accelerators > model::kScaleSplitAccelerators; }, fit_x);
  const auto later = held_out_minutes(
      space, cases, [&](const CalibrationCase& c) { return c.round == latest_round; }, fit_x);

  std::vector<ModeResiduals> modes;
  for (auto regime : model::all_prediction_regimes())
    modes.push_back({regime, {}, {}});
  auto add = [&](PredictionRegime regime, std::size_t i, double predicted) {
    if (!(predicted > 0) || !std::isfinite(predicted))
      return; // a group the refit could not predict (no other data)
    auto& mode = modes[static_cast<std::size_t>(regime)];
    mode.cases.push_back(i);
    mode.log_residuals.push_back(log_residual(cases[i], predicted));
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    add(PredictionRegime::CalibratedFamily, i, loso_minutes[i]);
    const bool alone = families_of_generation[c.generation].size() == 1;
    add(alone ? PredictionRegime::UncalibratedGeneration : PredictionRegime::NewFamilyCalibratedGeneration, i,
        lofo_minutes[i]);
    if (c.accelerators > model::kScaleSplitAccelerators)
      add(PredictionRegime::BeyondCalibratedScale, i, beyond[i]);
    if (c.round == latest_round)
      add(PredictionRegime::LaterRound, i, later[i]);
  }
  return modes;
}

model::ResidualQuantiles summarise_mode(const ModeResiduals& mode, const std::vector<CalibrationCase>& cases)
{
  model::ResidualQuantiles q;
  q.results = static_cast<int>(mode.log_residuals.size());
  if (mode.log_residuals.empty())
    return q;
  std::vector<double> sorted = mode.log_residuals;
  std::sort(sorted.begin(), sorted.end());
  q.low_log = interpolated_quantile(sorted, kLowQuantile);
  q.high_log = interpolated_quantile(sorted, kHighQuantile);
  // Coverage: each result against the interval its mode gives without its own system's residuals.
  int inside = 0;
  int judged = 0;
  for (std::size_t k = 0; k < mode.cases.size(); ++k) {
    const std::string& own = cases[mode.cases[k]].system_key;
    std::vector<double> others;
    for (std::size_t j = 0; j < mode.cases.size(); ++j)
      if (cases[mode.cases[j]].system_key != own)
        others.push_back(mode.log_residuals[j]);
    if (others.size() < 2)
      continue;
    std::sort(others.begin(), others.end());
    const double r = mode.log_residuals[k];
    ++judged;
    inside += r >= interpolated_quantile(others, kLowQuantile) && r <= interpolated_quantile(others, kHighQuantile) ? 1 : 0;
  }
  q.coverage = judged > 0 ? static_cast<double>(inside) / judged : 0.0;
  return q;
}

model::IntervalModel interval_model(const std::vector<ModeResiduals>& modes, const std::vector<CalibrationCase>& cases)
{
  model::IntervalModel intervals;
  for (const auto& mode : modes)
    intervals.modes[model::to_string(mode.regime)] = summarise_mode(mode, cases);
  std::set<std::string> families;
  for (const auto& c : cases) {
    families.insert(c.family);
    int& most = intervals.calibrated_accelerators[c.benchmark];
    most = std::max(most, c.accelerators);
  }
  intervals.families.assign(families.begin(), families.end());
  return intervals;
}

} // namespace gpuscale::analysis
