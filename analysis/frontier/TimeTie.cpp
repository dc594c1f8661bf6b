#include "analysis/frontier/TimeTie.hpp"

#include <cmath>
#include <optional>

namespace gpuscale::analysis {
namespace {

std::optional<model::PredictionRegime> regime_named(const std::string& name)
{
  for (auto regime : model::all_prediction_regimes())
    if (model::to_string(regime) == name)
      return regime;
  return std::nullopt;
}

} // namespace

std::pair<double, double> time_ratio_bounds(const Configuration& a, const Configuration& b,
                                            const model::IntervalModel* intervals)
{
  const double ratio = a.time_s / b.time_s;
  const auto ra = regime_named(a.run.interval_regime);
  const auto rb = regime_named(b.run.interval_regime);
  if (intervals != nullptr && ra && rb && a.run.workload == b.run.workload) {
    const auto pair_class =
        a.run.gpu_models == b.run.gpu_models ? model::PairClass::SameFamily : model::PairClass::OtherFamily;
    if (const auto bounds = model::ratio_log_bounds(*intervals, {*ra, *rb}, pair_class, 0.0))
      return {ratio * std::exp(bounds->first), ratio * std::exp(bounds->second)};
  }
  // Independent: the first's lowest over the second's highest, and the other way round.
  return {a.time_low_s / b.time_high_s, a.time_high_s / b.time_low_s};
}

bool time_tie(const Configuration& a, const Configuration& b, const model::IntervalModel* intervals)
{
  const auto [low, high] = time_ratio_bounds(a, b, intervals);
  return !(high < 1.0) && !(low > 1.0);
}

} // namespace gpuscale::analysis
