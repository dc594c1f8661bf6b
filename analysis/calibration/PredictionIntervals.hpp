#pragma once
/// The calibration's prediction intervals, from its own left-out errors: each validation mode of
/// sim/model/PredictionInterval.hpp predicts results the fit did not see, and the 10th and 90th
/// percentiles of its log residuals log(actual / predicted) bound an 80 % interval of that kind of
/// prediction. The coverage is measured honestly: each result is checked against the quantiles of
/// its mode computed without any result of its own system.

#include "analysis/calibration/CalibrationCase.hpp"
#include "analysis/calibration/CalibrationSurrogate.hpp"
#include "analysis/calibration/ValidationSplit.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/PredictionInterval.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpuscale::analysis {

/// The log time's first-order change per parameter at one standard error, by parameter name
/// (slope x standard error): two results' ratio has log-sd |a - b| over the names, so a parameter
/// both use with the same slope cancels.
using ParameterLogSlopes = std::map<std::string, double>;

/// One mode's left-out predictions.
struct ModeResiduals {
  model::PredictionRegime regime = model::PredictionRegime::CalibratedFamily;
  std::vector<std::size_t> cases;   ///< indices into the calibration cases
  std::vector<double> log_residuals; ///< log(actual / left-out predicted), parallel to `cases`
  std::vector<double> parameter_log_sd; ///< parameter_log_sd of each case, parallel to `cases`
  /// parameter_log_slopes of each case, parallel to `cases` (the ratio of two results' log-sd).
  std::vector<ParameterLogSlopes> parameter_slopes;
};

/// The log-sd of `c`'s surrogate time implied by `calibration`'s standard errors (delta method over
/// the parameters `space` gives `c`, central differences). The calibration stores 1-sigma per
/// parameter, not their correlations, so the parameters are taken as uncorrelated; parameters the
/// calibration lacks (an uncalibrated generation: the reference generation's 0.8) count with no uncertainty.
double parameter_log_sd(const ParameterSpace& space, const CalibrationCase& c, const model::Calibration& calibration);

/// The calibration's values of `space`'s parameters in optimiser coordinates, and their 1-sigma in
/// the same coordinates (0 where the calibration has none).
struct CalibratedPoint {
  std::vector<double> x;
  std::vector<double> sigma;
};
CalibratedPoint calibrated_point(const ParameterSpace& space, const model::Calibration& calibration);

/// The terms of parameter_log_sd, one per parameter with a standard error (its root sum of squares).
ParameterLogSlopes parameter_log_slopes(const ParameterSpace& space, const CalibrationCase& c,
                                        const model::Calibration& calibration);

/// The log-sd of the ratio of two results, each with its slopes (parameter_log_slopes): the root sum
/// of squares of their differences, so it is 0 for two results with the same slopes.
double ratio_parameter_log_sd(const ParameterLogSlopes& a, const ParameterLogSlopes& b);

/// The left-out residuals of every prediction regime, from the left-out predictions of the validation
/// modes (left_out_s_by_mode, CrossValidation.hpp): calibrated_family and thinly_calibrated_family
/// from leave_one_system_out, by whether the family's other systems hold kThinFamilyResults results
/// of the benchmark;
/// new_family_calibrated_generation and uncalibrated_generation from leave_one_family_out, by whether
/// another family shares the case's generation; beyond_calibrated_scale from scale_extrapolation;
/// later_round from leave_round_out. `calibration`: whose standard errors give each case's
/// parameter_log_sd.
std::vector<ModeResiduals> validation_mode_residuals(const ParameterSpace& space,
                                                     const std::vector<CalibrationCase>& cases,
                                                     const LeftOutSeconds& left_out,
                                                     const model::Calibration& calibration);

/// The split-conformal bounds of an 80 % interval from n sorted left-out log residuals: the
/// floor(0.1 (n + 1))-th and ceil(0.9 (n + 1))-th smallest (1-based, clamped to 1..n). A new result
/// exchangeable with them falls between these order statistics with probability >= 0.8 for any n
/// (Lei et al. 2018, "Distribution-free predictive inference for regression"), where interpolated
/// percentiles cover less than 80 % on small samples. For n < 9 the bounds are the extremes, and
/// cover less: the coverage validate reports says by how much.
std::pair<double, double> conformal_log_bounds(const std::vector<double>& sorted);

/// Bounds of one mode at model::kIntervalLevel (conformal_log_bounds), with the leave-one-system-out
/// coverage of the intervals predict gives (widened per case by its parameter_log_sd beyond the
/// largest of the other results, model::widened_log_bounds).
model::ResidualQuantiles summarise_mode(const ModeResiduals& mode, const std::vector<CalibrationCase>& cases);

/// The pair bounds of one mode (model::PairQuantiles): every ordered pair of its results of the same
/// benchmark, the pairs on one family (`pair_class` SameFamily) or on two; with the coverage of
/// those bounds, measured by system: each pair with a member of system S against the bounds of the
/// pairs with no member in S.
struct PairSummary {
  model::PairQuantiles quantiles;
  double coverage = 0;
  int judged = 0;
};
PairSummary summarise_pairs(const ModeResiduals& mode, const std::vector<CalibrationCase>& cases,
                            model::PairClass pair_class);

/// Coverage of one mode's intervals (as summarise_mode measures it) per accelerator family:
/// family -> {results judged, results inside}.
std::map<std::string, std::pair<int, int>> coverage_by_family(const ModeResiduals& mode,
                                                              const std::vector<CalibrationCase>& cases);

/// The residuals of `mode` of each generation with at least model::kGenerationResults of them: the
/// generations that get their own calibrated_family bounds.
std::map<std::string, ModeResiduals> generation_subsets(const ModeResiduals& mode,
                                                        const std::vector<CalibrationCase>& cases);

/// Coverage per family of the intervals a request is given: calibrated_family's families of a
/// generation with its own bounds judged against those (generation_subsets), the others against the
/// mode's; every other mode as coverage_by_family.
std::map<std::string, std::pair<int, int>> coverage_by_family_as_predicted(const ModeResiduals& mode,
                                                                           const std::vector<CalibrationCase>& cases);

/// Years from the latest round the later_round fold was fitted on to the round it predicted (their
/// mlperf_round_date; v4.0 -> v4.1: 0.42); 0 when the rounds are not "vM.0" / "vM.1" names.
double round_ahead_years(const ModeResiduals& later, const std::vector<CalibrationCase>& cases);

/// Everything predict needs: the quantiles of every mode (later_round with its round_ahead_years; the
/// calibrated_family bounds of each generation_subsets generation under model::generation_mode_key),
/// the calibrated families and the largest calibrated accelerator count per benchmark.
model::IntervalModel interval_model(const std::vector<ModeResiduals>& modes, const std::vector<CalibrationCase>& cases);

} // namespace gpuscale::analysis
