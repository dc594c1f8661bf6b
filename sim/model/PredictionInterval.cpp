#include "sim/model/PredictionInterval.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace gpuscale::model {

std::string to_string(PredictionRegime regime)
{
  switch (regime) {
    case PredictionRegime::CalibratedFamily: return "calibrated_family";
    case PredictionRegime::ThinlyCalibratedFamily: return "thinly_calibrated_family";
    case PredictionRegime::NewFamilyCalibratedGeneration: return "new_family_calibrated_generation";
    case PredictionRegime::UncalibratedGeneration: return "uncalibrated_generation";
    case PredictionRegime::BeyondCalibratedScale: return "beyond_calibrated_scale";
    case PredictionRegime::LaterRound: return "later_round";
  }
  return "?";
}

std::string to_string(PairClass pair_class)
{
  return pair_class == PairClass::SameFamily ? "same_family" : "other_family";
}

std::vector<PredictionRegime> all_prediction_regimes()
{
  return {PredictionRegime::CalibratedFamily, PredictionRegime::ThinlyCalibratedFamily,
          PredictionRegime::NewFamilyCalibratedGeneration,
          PredictionRegime::UncalibratedGeneration, PredictionRegime::BeyondCalibratedScale,
          PredictionRegime::LaterRound};
}

namespace {

bool is_thin_family(const IntervalModel& intervals, const std::string& family, Benchmark benchmark)
{
  const auto it = intervals.family_results.find(family);
  if (it == intervals.family_results.end())
    return false; // a file without counts: as before them
  const auto n = it->second.find(benchmark);
  return (n == it->second.end() ? 0 : n->second) < kThinFamilyResults;
}

} // namespace

std::vector<PredictionRegime> regimes_for(const IntervalModel& intervals, bool generation_calibrated,
                                          const std::string& family, Benchmark benchmark, int accelerators,
                                          bool later_than_data)
{
  std::vector<PredictionRegime> regimes;
  if (later_than_data)
    regimes.push_back(PredictionRegime::LaterRound);
  if (!generation_calibrated)
    regimes.push_back(PredictionRegime::UncalibratedGeneration);
  else if (std::find(intervals.families.begin(), intervals.families.end(), family) == intervals.families.end())
    regimes.push_back(PredictionRegime::NewFamilyCalibratedGeneration);
  else
    regimes.push_back(is_thin_family(intervals, family, benchmark) ? PredictionRegime::ThinlyCalibratedFamily
                                                                   : PredictionRegime::CalibratedFamily);
  const auto scale = intervals.calibrated_accelerators.find(benchmark);
  if (scale != intervals.calibrated_accelerators.end() && accelerators > scale->second)
    regimes.push_back(PredictionRegime::BeyondCalibratedScale);
  return regimes;
}

std::pair<double, double> widened_log_bounds(double low_log, double high_log, double parameter_log_sd,
                                             double typical_log_sd)
{
  const double excess = std::max(0.0, parameter_log_sd * parameter_log_sd - typical_log_sd * typical_log_sd);
  const double half = (high_log - low_log) / 2.0;
  const double widen = std::sqrt(half * half + kIntervalNormalQuantile * kIntervalNormalQuantile * excess) - half;
  return {low_log - widen, high_log + widen};
}

std::pair<double, double> later_round_log_bounds(const ResidualQuantiles& later, const ResidualQuantiles& within,
                                                 double years_past_data)
{
  if (!(later.distance_years > 0) || !(years_past_data > later.distance_years))
    return {later.low_log, later.high_log};
  const double stretch = years_past_data / later.distance_years;
  const double base_low = within.results > 0 ? within.low_log : 0.0;
  const double base_high = within.results > 0 ? within.high_log : 0.0;
  return {std::min(later.low_log, base_low + (later.low_log - base_low) * stretch),
          std::max(later.high_log, base_high + (later.high_log - base_high) * stretch)};
}

std::string generation_mode_key(PredictionRegime regime, const std::string& generation)
{
  return to_string(regime) + "@" + generation;
}

std::vector<std::string> generation_mode_keys(const IntervalModel& intervals, PredictionRegime regime)
{
  const std::string prefix = to_string(regime) + "@";
  std::vector<std::string> keys;
  for (const auto& [name, q] : intervals.modes)
    if (name.rfind(prefix, 0) == 0)
      keys.push_back(name);
  return keys;
}

std::optional<std::pair<double, double>> interval_s(const IntervalModel& intervals,
                                                          const std::vector<PredictionRegime>& regimes,
                                                          double predicted_s, double parameter_log_sd,
                                                          double years_past_data, const std::string& generation)
{
  double low_log = HUGE_VAL;
  double high_log = -HUGE_VAL;
  bool any = false;
  for (auto regime : regimes) {
    auto it = intervals.modes.find(to_string(regime));
    if (regime == PredictionRegime::CalibratedFamily && !generation.empty())
      if (const auto own = intervals.modes.find(generation_mode_key(regime, generation)); own != intervals.modes.end())
        it = own;
    if (it == intervals.modes.end() || it->second.results == 0)
      continue;
    const ResidualQuantiles& q = it->second;
    any = true;
    auto [mode_low, mode_high] = std::pair{q.low_log, q.high_log};
    if (regime == PredictionRegime::LaterRound) {
      const auto within = intervals.modes.find(to_string(PredictionRegime::CalibratedFamily));
      std::tie(mode_low, mode_high) = later_round_log_bounds(
          q, within == intervals.modes.end() ? ResidualQuantiles{} : within->second, years_past_data);
    }
    const auto [low, high] = widened_log_bounds(mode_low, mode_high, parameter_log_sd, q.parameter_log_sd);
    low_log = std::min(low_log, low);
    high_log = std::max(high_log, high);
  }
  if (!any)
    return std::nullopt;
  return std::pair{predicted_s * std::exp(low_log), predicted_s * std::exp(high_log)};
}

std::optional<std::pair<double, double>> ratio_log_bounds(const IntervalModel& intervals,
                                                          const std::vector<PredictionRegime>& regimes,
                                                          PairClass pair_class, double ratio_parameter_log_sd)
{
  double low_log = HUGE_VAL;
  double high_log = -HUGE_VAL;
  bool any = false;
  for (auto regime : regimes) {
    const auto it = intervals.modes.find(to_string(regime));
    if (it == intervals.modes.end() || it->second.results == 0)
      continue;
    const PairQuantiles& q = it->second.pairs(pair_class);
    if (q.pairs < kMinimumPairs)
      return std::nullopt; // one mode the pairs cannot judge: the ratio cannot be narrowed
    any = true;
    const auto [low, high] = widened_log_bounds(q.low_log, q.high_log, ratio_parameter_log_sd, q.parameter_log_sd);
    low_log = std::min(low_log, low);
    high_log = std::max(high_log, high);
  }
  if (!any)
    return std::nullopt;
  return std::pair{low_log, high_log};
}

} // namespace gpuscale::model
