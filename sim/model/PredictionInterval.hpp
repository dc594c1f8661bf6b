#pragma once
/// How far a prediction may be off, from how far the calibration was off on results it had not seen.
///
/// Each validation mode predicts MLPerf results the fit did not see, the way a request of that kind
/// is predicted, and keeps the log residuals log(actual / predicted):
///   calibrated_family                 leave one system out (the accelerator's family keeps its other systems)
///   new_family_calibrated_generation  leave one accelerator family out, where another family shares its generation
///   uncalibrated_generation           leave one family out, where it is alone in its generation (factor
///                                     0.8, Hopper's: the datasheet at the reference generation's fraction)
///   beyond_calibrated_scale           fit on <= kScaleSplitAccelerators accelerators, predict the larger results
///   later_round                       fit on the earlier rounds, predict the latest one
/// The 80 % interval of a prediction t is [t exp(q_low), t exp(q_high)], q_low and q_high the split-
/// conformal order statistics of its mode's residuals (analysis::conformal_log_bounds: the
/// floor(0.1 (n+1))-th and ceil(0.9 (n+1))-th smallest, which cover a new exchangeable result with
/// probability >= 0.8 at any n), widened where the request's own parameters are less certain than
/// those of every result the mode was measured on: with s the log-sd of t that the calibration's
/// standard errors give (delta method), s0 the largest s over the mode's results, w = (q_high -
/// q_low) / 2 and z = 1.2816 (the normal's 90th percentile), each side moves out by
/// sqrt(w^2 + z^2 max(0, s^2 - s0^2)) - w. The residuals already hold the parameter uncertainty of
/// the results they come from; only a request outside that range gets more, so it is not counted
/// twice. (Widening beyond the median s instead widened half of the results and covered 86-90 %.)

#include "sim/model/Benchmark.hpp"

#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace gpuscale::model {

enum class PredictionRegime { CalibratedFamily, NewFamilyCalibratedGeneration, UncalibratedGeneration, BeyondCalibratedScale, LaterRound };

/// The mode's name in calibration files, predict's JSON and validate's report.
std::string to_string(PredictionRegime regime);
/// Every regime, in the order above.
std::vector<PredictionRegime> all_prediction_regimes();

/// Results on more accelerators than this are what beyond_calibrated_scale predicts from the others.
inline constexpr int kScaleSplitAccelerators = 64;

/// The nominal level of the intervals.
inline constexpr double kIntervalLevel = 0.8;

/// One validation mode's left-out log residuals, summarised.
struct ResidualQuantiles {
  double low_log = 0;  ///< lower conformal bound of log(actual / predicted)
  double high_log = 0; ///< upper conformal bound
  int results = 0;     ///< left-out results in the mode
  double coverage = 0; ///< fraction of them inside intervals built without their own system's residuals
  double parameter_log_sd = 0; ///< largest over them of the log-sd the calibration's standard errors give
  /// later_round only: years from the date of the latest round the fold was fitted on to the date of
  /// the round it predicted (mlperf_round_date: v4.0 -> v4.1 is 0.42); 0 elsewhere or when unknown.
  double distance_years = 0;
};

/// The normal quantile of the interval's upper bound (0.9): the scale of the parameter term.
inline constexpr double kIntervalNormalQuantile = 1.2815515655446004;

/// [low_log, high_log] widened by the excess of `parameter_log_sd` over `typical_log_sd` (rule above).
std::pair<double, double> widened_log_bounds(double low_log, double high_log, double parameter_log_sd,
                                             double typical_log_sd);

/// What predict needs to choose a mode and size the interval (stored under `intervals:`).
struct IntervalModel {
  std::map<std::string, ResidualQuantiles> modes;       ///< to_string(regime) -> quantiles
  std::vector<std::string> families;                    ///< catalog accelerators with calibration results
  std::map<Benchmark, int> calibrated_accelerators;     ///< benchmark -> most accelerators of a calibration result

  bool empty() const { return modes.empty(); }
};

/// The modes a request falls in, the one it is reported under first: later_round when it asks for a
/// software date later than the calibration's data (`later_than_data`); then uncalibrated_generation
/// when its generation has no calibration result (`generation_calibrated` false), else
/// new_family_calibrated_generation when its catalog accelerator has none, else calibrated_family;
/// beyond_calibrated_scale in addition when it uses more accelerators than any calibration result of
/// the benchmark.
std::vector<PredictionRegime> regimes_for(const IntervalModel& intervals, bool generation_calibrated,
                                          const std::string& family, Benchmark benchmark, int accelerators,
                                          bool later_than_data = false);

/// later_round's log bounds for a request `years_past_data` after the calibration's reference date:
/// the mode was measured one round ahead
/// (`later.distance_years`); further ahead, its excess over `within` (calibrated_family, the error
/// inside the data) grows in proportion to the distance, as the error of an unmodelled drift at a
/// constant rate does. Never narrower than `later`; `later` unchanged at or below its distance, or
/// when either distance is unknown (0).
std::pair<double, double> later_round_log_bounds(const ResidualQuantiles& later, const ResidualQuantiles& within,
                                                 double years_past_data);

/// The interval of `predicted_s` under `regimes`: the union of their modes' intervals (so a
/// request both of a new family and beyond the calibrated scale gets the wider bounds of either).
/// `parameter_log_sd`: the request's log-sd from the calibration's standard errors (0: no widening).
/// `years_past_data`: for a later_round request, its years past the calibration's data
/// (later_round_log_bounds; 0: later_round's bounds as measured).
/// {low, high} seconds; nullopt when none of the modes has left-out results in `intervals`.
std::optional<std::pair<double, double>> interval_s(const IntervalModel& intervals,
                                                          const std::vector<PredictionRegime>& regimes,
                                                          double predicted_s, double parameter_log_sd = 0,
                                                          double years_past_data = 0);

} // namespace gpuscale::model
