#include "analysis/calibration/PredictionIntervals.hpp"

#include "analysis/calibration/CrossValidation.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gpuscale::analysis {
namespace {

constexpr double kLowQuantile = (1.0 - model::kIntervalLevel) / 2.0;  // 0.1
constexpr double kHighQuantile = (1.0 + model::kIntervalLevel) / 2.0; // 0.9

double log_residual(const CalibrationCase& c, double predicted_minutes)
{
  return std::log(c.actual_minutes / predicted_minutes);
}

double median_of(std::vector<double> values)
{
  std::sort(values.begin(), values.end());
  return interpolated_quantile(values, 0.5);
}

} // namespace

double parameter_log_sd(const ParameterSpace& space, const CalibrationCase& c, const model::Calibration& calibration)
{
  using Group = ParameterSpace::Group;
  std::vector<double> x = space.start();
  std::vector<double> sigma(space.size(), 0.0);
  for (std::size_t j = 0; j < space.size(); ++j) {
    const auto& p = space.parameters()[j];
    const std::map<std::string, model::CalibratedValue>* group = nullptr;
    switch (p.group) {
      case Group::Compute: group = &calibration.compute; break;
      case Group::Generation: group = &calibration.generation; break;
      case Group::Memory: group = &calibration.memory; break;
      case Group::Network: group = &calibration.network; break;
      case Group::Overhead: group = &calibration.overhead_s; break;
      case Group::StepOverhead: group = &calibration.step_overhead_s; break;
      case Group::SoftwareTrend: group = &calibration.software_trend; break;
    }
    const auto it = group->find(p.label);
    if (it == group->end())
      continue; // neutral start, no uncertainty
    const auto& v = it->second;
    switch (p.group) { // optimiser coordinates (ParameterSpace::value_of)
      case Group::Overhead:
        x[j] = v.value / 60.0;
        sigma[j] = v.standard_error / 60.0;
        break;
      case Group::StepOverhead:
        x[j] = v.value;
        sigma[j] = v.standard_error;
        break;
      default:
        x[j] = std::log(v.value);
        sigma[j] = v.standard_error / v.value; // d log v = dv / v
        break;
    }
  }
  double variance = 0;
  for (std::size_t j = 0; j < space.size(); ++j) {
    if (sigma[j] <= 0)
      continue;
    const double h = 1e-4 * std::max(1.0, std::abs(x[j]));
    std::vector<double> up = x, down = x;
    up[j] += h;
    down[j] -= h;
    const double slope =
        (std::log(space.predict_minutes(c, up)) - std::log(space.predict_minutes(c, down))) / (2.0 * h);
    if (std::isfinite(slope))
      variance += slope * slope * sigma[j] * sigma[j];
  }
  return std::sqrt(variance);
}

std::vector<ModeResiduals> validation_mode_residuals(const ParameterSpace& space,
                                                     const std::vector<CalibrationCase>& cases,
                                                     const LeftOutMinutes& left_out,
                                                     const model::Calibration& calibration)
{
  using model::PredictionRegime;
  std::map<std::string, std::set<std::string>> families_of_generation;
  for (const auto& c : cases)
    families_of_generation[c.generation].insert(c.family);
  const auto& loso_minutes = left_out.at(ValidationMode::LeaveOneSystemOut);
  const auto& lofo_minutes = left_out.at(ValidationMode::LeaveOneFamilyOut);
  const auto& beyond = left_out.at(ValidationMode::ScaleExtrapolation);
  const auto& later = left_out.at(ValidationMode::LeaveRoundOut);

  std::vector<ModeResiduals> modes;
  for (auto regime : model::all_prediction_regimes())
    modes.push_back({regime, {}, {}, {}});
  std::vector<double> sd(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i)
    sd[i] = parameter_log_sd(space, cases[i], calibration);
  auto add = [&](PredictionRegime regime, std::size_t i, double predicted) {
    if (!(predicted > 0) || !std::isfinite(predicted))
      return; // not predicted in that mode, or by a refit left without data
    auto& mode = modes[static_cast<std::size_t>(regime)];
    mode.cases.push_back(i);
    mode.log_residuals.push_back(log_residual(cases[i], predicted));
    mode.parameter_log_sd.push_back(sd[i]);
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    add(PredictionRegime::CalibratedFamily, i, loso_minutes[i]);
    const bool alone = families_of_generation[c.generation].size() == 1;
    add(alone ? PredictionRegime::UncalibratedGeneration : PredictionRegime::NewFamilyCalibratedGeneration, i,
        lofo_minutes[i]);
    add(PredictionRegime::BeyondCalibratedScale, i, beyond[i]);
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
  q.parameter_log_sd = mode.parameter_log_sd.empty() ? 0.0 : median_of(mode.parameter_log_sd);
  // Coverage: each result against the interval its mode gives without its own system's residuals.
  int inside = 0;
  int judged = 0;
  for (std::size_t k = 0; k < mode.cases.size(); ++k) {
    const std::string& own = cases[mode.cases[k]].system_key;
    std::vector<double> others, others_sd;
    for (std::size_t j = 0; j < mode.cases.size(); ++j)
      if (cases[mode.cases[j]].system_key != own) {
        others.push_back(mode.log_residuals[j]);
        if (j < mode.parameter_log_sd.size())
          others_sd.push_back(mode.parameter_log_sd[j]);
      }
    if (others.size() < 2)
      continue;
    std::sort(others.begin(), others.end());
    const double own_sd = k < mode.parameter_log_sd.size() ? mode.parameter_log_sd[k] : 0.0;
    const auto [low, high] =
        model::widened_log_bounds(interpolated_quantile(others, kLowQuantile), interpolated_quantile(others, kHighQuantile),
                                  own_sd, others_sd.empty() ? 0.0 : median_of(others_sd));
    const double r = mode.log_residuals[k];
    ++judged;
    inside += r >= low && r <= high ? 1 : 0;
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
