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

#include <utility>
#include <vector>

namespace gpuscale::analysis {

/// One mode's left-out predictions.
struct ModeResiduals {
  model::PredictionRegime regime = model::PredictionRegime::CalibratedFamily;
  std::vector<std::size_t> cases;   ///< indices into the calibration cases
  std::vector<double> log_residuals; ///< log(actual / left-out predicted), parallel to `cases`
  std::vector<double> parameter_log_sd; ///< parameter_log_sd of each case, parallel to `cases`
};

/// The log-sd of `c`'s surrogate time implied by `calibration`'s standard errors (delta method over
/// the parameters `space` gives `c`, central differences). The calibration stores 1-sigma per
/// parameter, not their correlations, so the parameters are taken as uncorrelated; parameters the
/// calibration lacks (an uncalibrated generation: the reference generation's 0.8) count with no uncertainty.
double parameter_log_sd(const ParameterSpace& space, const CalibrationCase& c, const model::Calibration& calibration);

/// The left-out residuals of every prediction regime, from the left-out predictions of the validation
/// modes (left_out_s_by_mode, CrossValidation.hpp): calibrated_family from leave_one_system_out;
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

/// Years from the latest round the later_round fold was fitted on to the round it predicted (their
/// mlperf_round_date; v4.0 -> v4.1: 0.42); 0 when the rounds are not "vM.0" / "vM.1" names.
double round_ahead_years(const ModeResiduals& later, const std::vector<CalibrationCase>& cases);

/// Everything predict needs: the quantiles of every mode (later_round with its round_ahead_years),
/// the calibrated families and the largest calibrated accelerator count per benchmark.
model::IntervalModel interval_model(const std::vector<ModeResiduals>& modes, const std::vector<CalibrationCase>& cases);

} // namespace gpuscale::analysis
