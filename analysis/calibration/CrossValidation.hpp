#pragma once
/// Leave-group-out cross-validation of the calibration: for each group (a system, an accelerator
/// family), refit the surrogate without the group's results and predict them.

#include "analysis/calibration/CalibrationCase.hpp"
#include "analysis/calibration/CalibrationSurrogate.hpp"

#include <functional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

/// Predicted minutes of every case by the fit that left out the case's group. `start`: the full
/// fit's coordinates (a warm start); parameters left without data keep their start value.
std::vector<double> leave_group_out(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                    const std::function<std::string(const CalibrationCase&)>& group_of,
                                    const std::vector<double>& start);

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
