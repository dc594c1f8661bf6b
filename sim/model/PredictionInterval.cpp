#include "sim/model/PredictionInterval.hpp"

#include <algorithm>
#include <cmath>

namespace gpuscale::model {

std::string to_string(PredictionRegime regime)
{
  switch (regime) {
    case PredictionRegime::CalibratedFamily: return "calibrated_family";
    case PredictionRegime::NewFamilyCalibratedGeneration: return "new_family_calibrated_generation";
    case PredictionRegime::UncalibratedGeneration: return "uncalibrated_generation";
    case PredictionRegime::BeyondCalibratedScale: return "beyond_calibrated_scale";
    case PredictionRegime::LaterRound: return "later_round";
  }
  return "?";
}

std::vector<PredictionRegime> all_prediction_regimes()
{
  return {PredictionRegime::CalibratedFamily, PredictionRegime::NewFamilyCalibratedGeneration,
          PredictionRegime::UncalibratedGeneration, PredictionRegime::BeyondCalibratedScale,
          PredictionRegime::LaterRound};
}

std::vector<PredictionRegime> regimes_for(const IntervalModel& intervals, bool generation_calibrated,
                                          const std::string& family, const std::string& benchmark, int accelerators)
{
  std::vector<PredictionRegime> regimes;
  if (!generation_calibrated)
    regimes.push_back(PredictionRegime::UncalibratedGeneration);
  else if (std::find(intervals.families.begin(), intervals.families.end(), family) == intervals.families.end())
    regimes.push_back(PredictionRegime::NewFamilyCalibratedGeneration);
  else
    regimes.push_back(PredictionRegime::CalibratedFamily);
  const auto scale = intervals.calibrated_accelerators.find(benchmark);
  if (scale != intervals.calibrated_accelerators.end() && accelerators > scale->second)
    regimes.push_back(PredictionRegime::BeyondCalibratedScale);
  return regimes;
}

std::optional<std::pair<double, double>> interval_minutes(const IntervalModel& intervals, const std::vector<PredictionRegime>& regimes,
                                           double predicted_minutes)
{
  double low_log = HUGE_VAL;
  double high_log = -HUGE_VAL;
  bool any = false;
  for (auto regime : regimes) {
    const auto it = intervals.modes.find(to_string(regime));
    if (it == intervals.modes.end() || it->second.results == 0)
      continue;
    const ResidualQuantiles& q = it->second;
    any = true;
    low_log = std::min(low_log, q.low_log);
    high_log = std::max(high_log, q.high_log);
  }
  if (!any)
    return std::nullopt;
  return std::pair{predicted_minutes * std::exp(low_log), predicted_minutes * std::exp(high_log)};
}

} // namespace gpuscale::model
