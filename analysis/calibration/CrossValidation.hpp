#pragma once
/// Cross-validation of the calibration: for each fold of a split (a system, an accelerator family,
/// the latest round, the large results; ValidationSplit.hpp), refit the surrogate on the fold's
/// training cases and predict its left-out ones.

#include "analysis/calibration/CalibrationCase.hpp"
#include "analysis/calibration/CalibrationSurrogate.hpp"
#include "analysis/calibration/ValidationSplit.hpp"

#include <functional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

/// Predicted seconds of every case by the fit of the fold that predicts it (0 for a case no fold
/// predicts, or whose fold has no training case). `start`: the full fit's coordinates (a warm
/// start); parameters the fold's training cases do not inform start at the space's neutral value.
/// The folds are fitted on `threads` threads (0: every hardware thread); the result does not depend
/// on how many.
std::vector<double> refit_folds(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                const std::vector<ValidationFold>& folds, const std::vector<double>& start,
                                unsigned threads = 0);

/// refit_folds over one fold per group of `group_of`: each case by the fit that left out its group.
std::vector<double> leave_group_out(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                    const std::function<std::string(const CalibrationCase&)>& group_of,
                                    const std::vector<double>& start);

/// gpuscale's left-out predictions in `mode` (refit_folds over validation_folds(mode, cases), on
/// `threads` threads as there).
std::vector<double> left_out_s(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                     ValidationMode mode, const std::vector<double>& start, unsigned threads = 0);

/// left_out_s of every mode: what validate compares and the prediction intervals summarise.
LeftOutSeconds left_out_s_by_mode(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                        const std::vector<double>& start, unsigned threads = 0);

/// The q-quantile of ascending `sorted` by linear interpolation between order statistics (numpy's
/// default); 0 when empty.
double interpolated_quantile(const std::vector<double>& sorted, double q);

/// Absolute percentage error |predicted - actual| / actual x 100.
double absolute_percentage_error(double predicted, double actual);

struct ErrorSummary {
  int count = 0;
  double median_pct = 0;
  double mean_pct = 0;
  double p90_pct = 0;
};

/// Summary of absolute percentage errors (median and 90th percentile by linear interpolation
/// between order statistics, as numpy's default).
ErrorSummary summarise_errors(std::vector<double> ape_pct);

} // namespace gpuscale::analysis
