#include "analysis/calibration/PredictionIntervals.hpp"

#include "analysis/calibration/CrossValidation.hpp"
#include "sim/model/SoftwareDate.hpp"
#include "sim/units/Quantity.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace gpuscale::analysis {
namespace {

constexpr double kTailFraction = (1.0 - model::kIntervalLevel) / 2.0; // 0.1 below, 0.1 above

double log_residual(const CalibrationCase& c, double predicted_s)
{
  return std::log(c.actual_s / predicted_s);
}

/// The calibration's value of parameter `p` (its group, its benchmark or label); null when it has none.
const model::CalibratedValue* calibrated_value(const model::Calibration& calibration, const ParameterSpace::Parameter& p)
{
  using Group = ParameterSpace::Group;
  const auto in = [](const auto& group, const auto& key) -> const model::CalibratedValue* {
    const auto it = group.find(key);
    return it == group.end() ? nullptr : &it->second;
  };
  switch (p.group) {
    case Group::Compute: return in(calibration.compute, *p.benchmark);
    case Group::Generation: return in(calibration.generation, p.label);
    case Group::Memory: return in(calibration.memory, *p.benchmark);
    case Group::Network: return in(calibration.network, p.label);
    case Group::Overhead: return in(calibration.overhead_s, *p.benchmark);
    case Group::StepOverhead: return in(calibration.step_overhead_s, *p.benchmark);
    case Group::Maturity: return in(calibration.maturity, p.label);
  }
  return nullptr;
}

double largest(const std::vector<double>& values)
{
  return values.empty() ? 0.0 : *std::max_element(values.begin(), values.end());
}

} // namespace

std::pair<double, double> conformal_log_bounds(const std::vector<double>& sorted)
{
  const auto n = static_cast<long>(sorted.size());
  if (n == 0)
    return {0.0, 0.0};
  const double ranks = static_cast<double>(n + 1);
  const double slack = 1e-9; // 0.1 x 20 is 2, not 1.9999999999999996 as (1 - 0.8) / 2 x 20 computes
  const long low_rank = std::clamp(static_cast<long>(std::floor(kTailFraction * ranks + slack)), 1L, n);
  const long high_rank = std::clamp(static_cast<long>(std::ceil((1.0 - kTailFraction) * ranks - slack)), 1L, n);
  return {sorted[static_cast<std::size_t>(low_rank - 1)], sorted[static_cast<std::size_t>(high_rank - 1)]};
}

CalibratedPoint calibrated_point(const ParameterSpace& space, const model::Calibration& calibration)
{
  using Group = ParameterSpace::Group;
  CalibratedPoint point{space.start(), std::vector<double>(space.size(), 0.0)};
  auto& x = point.x;
  auto& sigma = point.sigma;
  for (std::size_t j = 0; j < space.size(); ++j) {
    const auto& p = space.parameters()[j];
    const model::CalibratedValue* value = calibrated_value(calibration, p);
    if (value == nullptr)
      continue; // neutral start, no uncertainty
    const auto& v = *value;
    switch (p.group) { // optimiser coordinates (ParameterSpace::value_of)
      case Group::Overhead:
        x[j] = units::to_minutes(v.value);
        sigma[j] = units::to_minutes(v.standard_error);
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
  return point;
}

ParameterLogSlopes parameter_log_slopes(const ParameterSpace& space, const CalibrationCase& c,
                                        const model::Calibration& calibration)
{
  const auto [x, sigma] = calibrated_point(space, calibration);
  ParameterLogSlopes slopes;
  for (std::size_t j = 0; j < space.size(); ++j) {
    if (sigma[j] <= 0)
      continue;
    const double h = 1e-4 * std::max(1.0, std::abs(x[j]));
    std::vector<double> up = x, down = x;
    up[j] += h;
    down[j] -= h;
    const double slope =
        (std::log(space.predict_s(c, up)) - std::log(space.predict_s(c, down))) / (2.0 * h);
    if (std::isfinite(slope) && slope != 0)
      slopes[space.parameters()[j].name] = slope * sigma[j];
  }
  return slopes;
}

double parameter_log_sd(const ParameterSpace& space, const CalibrationCase& c, const model::Calibration& calibration)
{
  return ratio_parameter_log_sd(parameter_log_slopes(space, c, calibration), {});
}

double ratio_parameter_log_sd(const ParameterLogSlopes& a, const ParameterLogSlopes& b)
{
  double variance = 0;
  for (const auto& [name, slope] : a) {
    const auto other = b.find(name);
    const double d = slope - (other == b.end() ? 0.0 : other->second);
    variance += d * d;
  }
  for (const auto& [name, slope] : b)
    if (!a.contains(name))
      variance += slope * slope;
  return std::sqrt(variance);
}

std::vector<ModeResiduals> validation_mode_residuals(const ParameterSpace& space,
                                                     const std::vector<CalibrationCase>& cases,
                                                     const LeftOutSeconds& left_out,
                                                     const model::Calibration& calibration)
{
  using model::PredictionRegime;
  std::map<std::string, std::set<std::string>> families_of_generation;
  for (const auto& c : cases)
    families_of_generation[c.generation].insert(c.family);
  const auto& loso_s = left_out.at(ValidationMode::LeaveOneSystemOut);
  const auto& lofo_s = left_out.at(ValidationMode::LeaveOneFamilyOut);
  const auto& beyond = left_out.at(ValidationMode::ScaleExtrapolation);
  const auto& later = left_out.at(ValidationMode::LeaveRoundOut);

  std::vector<ModeResiduals> modes;
  for (auto regime : model::all_prediction_regimes())
    modes.push_back({regime, {}, {}, {}, {}});
  std::vector<ParameterLogSlopes> slopes(cases.size());
  std::vector<double> sd(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    slopes[i] = parameter_log_slopes(space, cases[i], calibration);
    sd[i] = ratio_parameter_log_sd(slopes[i], {});
  }
  auto add = [&](PredictionRegime regime, std::size_t i, double predicted) {
    if (!(predicted > 0) || !std::isfinite(predicted))
      return; // not predicted in that mode, or by a refit left without data
    auto& mode = modes[static_cast<std::size_t>(regime)];
    mode.cases.push_back(i);
    mode.log_residuals.push_back(log_residual(cases[i], predicted));
    mode.parameter_log_sd.push_back(sd[i]);
    mode.parameter_slopes.push_back(slopes[i]);
  };
  // Results of each family and benchmark by system: a left-out system's family keeps the others.
  std::map<std::tuple<std::string, model::Benchmark>, std::map<std::string, int>> results_by_system;
  for (const auto& c : cases)
    ++results_by_system[{c.family, c.benchmark}][c.system_key];
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    int others = 0;
    for (const auto& [system, n] : results_by_system[{c.family, c.benchmark}])
      others += system == c.system_key ? 0 : n;
    add(others < model::kThinFamilyResults ? PredictionRegime::ThinlyCalibratedFamily
                                           : PredictionRegime::CalibratedFamily,
        i, loso_s[i]);
    const bool alone = families_of_generation[c.generation].size() == 1;
    add(alone ? PredictionRegime::UncalibratedGeneration : PredictionRegime::NewFamilyCalibratedGeneration, i,
        lofo_s[i]);
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
  std::tie(q.low_log, q.high_log) = conformal_log_bounds(sorted);
  q.parameter_log_sd = largest(mode.parameter_log_sd);
  // Coverage: each result against the interval its mode gives without its own system's residuals.
  int judged = 0;
  int inside = 0;
  for (const auto& [family, counts] : coverage_by_family(mode, cases)) {
    judged += counts.first;
    inside += counts.second;
  }
  q.coverage = judged > 0 ? static_cast<double>(inside) / judged : 0.0;
  return q;
}

namespace {

/// Whether the pair (a, b) of mode positions belongs to `pair_class` (same benchmark required).
bool in_pair_class(const ModeResiduals& mode, const std::vector<CalibrationCase>& cases, std::size_t a,
                   std::size_t b, model::PairClass pair_class)
{
  const auto& x = cases[mode.cases[a]];
  const auto& y = cases[mode.cases[b]];
  if (a == b || x.benchmark != y.benchmark)
    return false;
  return (x.family == y.family) == (pair_class == model::PairClass::SameFamily);
}

} // namespace

PairSummary summarise_pairs(const ModeResiduals& mode, const std::vector<CalibrationCase>& cases,
                            model::PairClass pair_class)
{
  struct Pair {
    std::size_t a, b;
    double d;
  };
  std::vector<Pair> pairs;
  double largest_sd = 0;
  for (std::size_t a = 0; a < mode.cases.size(); ++a)
    for (std::size_t b = 0; b < mode.cases.size(); ++b)
      if (in_pair_class(mode, cases, a, b, pair_class)) {
        pairs.push_back({a, b, mode.log_residuals[a] - mode.log_residuals[b]});
        if (a < b && a < mode.parameter_slopes.size() && b < mode.parameter_slopes.size())
          largest_sd = std::max(largest_sd, ratio_parameter_log_sd(mode.parameter_slopes[a], mode.parameter_slopes[b]));
      }
  PairSummary summary;
  summary.quantiles.pairs = static_cast<int>(pairs.size());
  summary.quantiles.parameter_log_sd = largest_sd;
  if (pairs.empty())
    return summary;
  std::vector<double> sorted;
  for (const auto& p : pairs)
    sorted.push_back(p.d);
  std::sort(sorted.begin(), sorted.end());
  std::tie(summary.quantiles.low_log, summary.quantiles.high_log) = conformal_log_bounds(sorted);
  // Coverage by system: the pairs with a member of S against the bounds of the pairs without one.
  std::set<std::string> systems;
  for (std::size_t i : mode.cases)
    systems.insert(cases[i].system_key);
  int inside = 0;
  for (const auto& system : systems) {
    const auto of = [&](std::size_t position) { return cases[mode.cases[position]].system_key == system; };
    std::vector<double> others;
    for (const auto& p : pairs)
      if (!of(p.a) && !of(p.b))
        others.push_back(p.d);
    if (others.size() < static_cast<std::size_t>(model::kMinimumPairs))
      continue;
    std::sort(others.begin(), others.end());
    const auto [low, high] = conformal_log_bounds(others);
    for (const auto& p : pairs)
      if (of(p.a)) {
        ++summary.judged;
        inside += p.d >= low && p.d <= high ? 1 : 0;
      }
  }
  summary.coverage = summary.judged > 0 ? static_cast<double>(inside) / summary.judged : 0.0;
  return summary;
}

std::map<std::string, std::pair<int, int>> coverage_by_family(const ModeResiduals& mode,
                                                              const std::vector<CalibrationCase>& cases)
{
  std::map<std::string, std::pair<int, int>> by_family;
  for (std::size_t k = 0; k < mode.cases.size(); ++k) {
    const auto& c = cases[mode.cases[k]];
    std::vector<double> others, others_sd;
    for (std::size_t j = 0; j < mode.cases.size(); ++j)
      if (cases[mode.cases[j]].system_key != c.system_key) {
        others.push_back(mode.log_residuals[j]);
        if (j < mode.parameter_log_sd.size())
          others_sd.push_back(mode.parameter_log_sd[j]);
      }
    if (others.size() < 2)
      continue;
    std::sort(others.begin(), others.end());
    const double own_sd = k < mode.parameter_log_sd.size() ? mode.parameter_log_sd[k] : 0.0;
    const auto [others_low, others_high] = conformal_log_bounds(others);
    const auto [low, high] = model::widened_log_bounds(others_low, others_high, own_sd, largest(others_sd));
    auto& [judged, inside] = by_family[c.family];
    ++judged;
    inside += mode.log_residuals[k] >= low && mode.log_residuals[k] <= high ? 1 : 0;
  }
  return by_family;
}

std::map<std::string, ModeResiduals> generation_subsets(const ModeResiduals& mode,
                                                        const std::vector<CalibrationCase>& cases)
{
  std::map<std::string, ModeResiduals> by_generation;
  for (std::size_t k = 0; k < mode.cases.size(); ++k) {
    auto& subset = by_generation[cases[mode.cases[k]].generation];
    subset.regime = mode.regime;
    subset.cases.push_back(mode.cases[k]);
    subset.log_residuals.push_back(mode.log_residuals[k]);
    if (k < mode.parameter_log_sd.size())
      subset.parameter_log_sd.push_back(mode.parameter_log_sd[k]);
    if (k < mode.parameter_slopes.size())
      subset.parameter_slopes.push_back(mode.parameter_slopes[k]);
  }
  std::erase_if(by_generation,
                [](const auto& g) { return g.second.cases.size() < static_cast<std::size_t>(model::kGenerationResults); });
  return by_generation;
}

std::map<std::string, std::pair<int, int>> coverage_by_family_as_predicted(const ModeResiduals& mode,
                                                                           const std::vector<CalibrationCase>& cases)
{
  auto coverage = coverage_by_family(mode, cases);
  if (mode.regime != model::PredictionRegime::CalibratedFamily)
    return coverage;
  for (const auto& [generation, subset] : generation_subsets(mode, cases)) {
    for (const auto& k : subset.cases)
      coverage.erase(cases[k].family);
    for (const auto& [family, counts] : coverage_by_family(subset, cases))
      coverage[family] = counts;
  }
  return coverage;
}

double round_ahead_years(const ModeResiduals& later, const std::vector<CalibrationCase>& cases)
{
  std::string predicted;
  for (std::size_t i : later.cases)
    if (predicted.empty() || round_before(predicted, cases[i].round))
      predicted = cases[i].round;
  std::string fitted;
  for (const auto& c : cases)
    if (round_before(c.round, predicted) && (fitted.empty() || round_before(fitted, c.round)))
      fitted = c.round;
  const auto to = model::mlperf_round_date(predicted);
  const auto from = model::mlperf_round_date(fitted);
  return to && from && *to > *from ? to->year - from->year : 0.0;
}

model::IntervalModel interval_model(const std::vector<ModeResiduals>& modes, const std::vector<CalibrationCase>& cases)
{
  model::IntervalModel intervals;
  for (const auto& mode : modes) {
    model::ResidualQuantiles q = summarise_mode(mode, cases);
    if (mode.regime == model::PredictionRegime::LaterRound)
      q.distance_years = round_ahead_years(mode, cases);
    q.same_family = summarise_pairs(mode, cases, model::PairClass::SameFamily).quantiles;
    q.other_family = summarise_pairs(mode, cases, model::PairClass::OtherFamily).quantiles;
    if (mode.regime == model::PredictionRegime::CalibratedFamily)
      for (const auto& [generation, subset] : generation_subsets(mode, cases))
        intervals.modes[model::generation_mode_key(mode.regime, generation)] = summarise_mode(subset, cases);
    intervals.modes[model::to_string(mode.regime)] = q;
  }
  std::set<std::string> families;
  for (const auto& c : cases) {
    families.insert(c.family);
    ++intervals.family_results[c.family][c.benchmark];
    int& most = intervals.calibrated_accelerators[c.benchmark];
    most = std::max(most, c.accelerators);
  }
  intervals.families.assign(families.begin(), families.end());
  return intervals;
}

} // namespace gpuscale::analysis
