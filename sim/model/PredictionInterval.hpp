#pragma once
/// How far a prediction may be off, from how far the calibration was off on results it had not seen.
///
/// Each validation mode predicts MLPerf results the fit did not see, the way a request of that kind
/// is predicted, and keeps the log residuals log(actual / predicted):
///   calibrated_family                 leave one system out (the accelerator's family keeps its other systems,
///                                     with at least kThinFamilyResults results of the benchmark)
///   thinly_calibrated_family          the same, where the family's other systems hold fewer
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

/// Declared order; all_prediction_regimes() lists them in it and validate indexes by it.
enum class PredictionRegime {
  CalibratedFamily,
  ThinlyCalibratedFamily,
  NewFamilyCalibratedGeneration,
  UncalibratedGeneration,
  BeyondCalibratedScale,
  LaterRound
};

/// The mode's name in calibration files, predict's JSON and validate's report.
std::string to_string(PredictionRegime regime);
/// Every regime, in the order above.
std::vector<PredictionRegime> all_prediction_regimes();

/// A family with fewer calibration results of a benchmark than this is thinly calibrated for it: its
/// predictions rest on the few it has, and their left-out errors are measured apart
/// (thinly_calibrated_family). Declared, not tuned: below 5 results one system's quirks dominate.
inline constexpr int kThinFamilyResults = 5;

/// A generation with at least this many calibrated_family residuals gets its own bounds in that mode,
/// stored as "calibrated_family@<generation>" (generation_mode_key): the newest generation is
/// predicted worse than the established ones, and bounds shared by all would cover too little of
/// the one and too much of the others. Declared, not tuned.
inline constexpr int kGenerationResults = 30;

/// "calibrated_family@blackwell": the key of a generation's own bounds of `regime`.
std::string generation_mode_key(PredictionRegime regime, const std::string& generation);

/// Results on more accelerators than this are what beyond_calibrated_scale predicts from the others.
inline constexpr int kScaleSplitAccelerators = 64;

/// The nominal level of the intervals.
inline constexpr double kIntervalLevel = 0.8;

/// How far the model's errors on two options of one benchmark can differ: the split-conformal bounds
/// of r_i - r_j over the ordered pairs (i, j) of one mode's left-out results of the same benchmark,
/// r the log residual log(actual / predicted). Ordered pairs make the bounds symmetric. The pairs
/// share results, so they are not exchangeable the way single results are: validate measures the
/// coverage rather than the theorem promising it.
struct PairQuantiles {
  double low_log = 0;  ///< lower bound of r_i - r_j
  double high_log = 0; ///< upper bound
  int pairs = 0;       ///< ordered pairs
  /// Largest over the pairs of the log-sd of their ratio that the calibration's standard errors give
  /// (the parameters both share cancel): the ratio's own widening starts beyond it.
  double parameter_log_sd = 0;
};

/// The classes of pairs a ratio is judged by: both options on the same accelerator family (what a
/// what-if on given hardware compares), or on different ones.
enum class PairClass { SameFamily, OtherFamily };
std::string to_string(PairClass pair_class);

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
  PairQuantiles same_family{};  ///< pairs of results on one family (PairClass::SameFamily)
  PairQuantiles other_family{}; ///< pairs on two different families
  const PairQuantiles& pairs(PairClass pair_class) const
  {
    return pair_class == PairClass::SameFamily ? same_family : other_family;
  }
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
  /// family -> benchmark -> calibration results (empty in files written before it: every listed
  /// family then counts as calibrated_family).
  std::map<std::string, std::map<Benchmark, int>> family_results;
  std::map<Benchmark, int> calibrated_accelerators;     ///< benchmark -> most accelerators of a calibration result

  bool empty() const { return modes.empty(); }
};

/// The generation_mode_key entries of `regime` that `intervals` holds, in key order.
std::vector<std::string> generation_mode_keys(const IntervalModel& intervals, PredictionRegime regime);

/// The modes a request falls in, the one it is reported under first: later_round when it asks for a
/// software date later than the calibration's data (`later_than_data`); then uncalibrated_generation
/// when its generation has no calibration result (`generation_calibrated` false), else
/// new_family_calibrated_generation when its catalog accelerator has none, else
/// thinly_calibrated_family when it has fewer than kThinFamilyResults of the benchmark, else
/// calibrated_family;
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
/// (later_round_log_bounds; 0: later_round's bounds as measured). `generation`: the request's
/// accelerator generation; calibrated_family takes that generation's own bounds where it has them.
/// {low, high} seconds; nullopt when none of the modes has left-out results in `intervals`.
std::optional<std::pair<double, double>> interval_s(const IntervalModel& intervals,
                                                          const std::vector<PredictionRegime>& regimes,
                                                          double predicted_s, double parameter_log_sd = 0,
                                                          double years_past_data = 0,
                                                          const std::string& generation = "");

/// Fewest ordered pairs a mode must hold for its pair bounds to judge a ratio.
inline constexpr int kMinimumPairs = 20;

/// The log bounds of the ratio of two predictions of one benchmark, actual over predicted, under the
/// regimes of either (the union of their modes, as interval_s): each mode's pair bounds of the class,
/// widened by the excess of `ratio_parameter_log_sd` (the ratio's log-sd from the standard errors,
/// shared parameters cancelling) over the pairs' largest (widened_log_bounds). nullopt when any of
/// the modes (with left-out results) holds fewer than kMinimumPairs pairs of the class: the caller
/// then combines the two intervals as independent.
std::optional<std::pair<double, double>> ratio_log_bounds(const IntervalModel& intervals,
                                                          const std::vector<PredictionRegime>& regimes,
                                                          PairClass pair_class, double ratio_parameter_log_sd);

} // namespace gpuscale::model
