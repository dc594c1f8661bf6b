#pragma once
/// Fits the calibration parameters to MLPerf results: minimises the sum of squared log errors of the
/// surrogate's time to train, within bounds (NLopt BOBYQA, derivative-free, restarted once from its
/// own optimum). Standard errors come from the Gauss-Newton covariance sigma^2 (J^T J)^-1 of the
/// log residuals at the optimum (J by central differences); a parameter no result depends on, one
/// at a bound, or one whose 1-sigma exceeds a factor 1.65 (0.5 in log) is flagged as not identified;
/// a correlation above 0.9 with another parameter is noted.
///
/// The software trends (ParameterSpace::Group::SoftwareTrend) are measured within the dated repeats
/// only (ParameterSpace::trend_repeat_groups): they minimise the spread of each repeat group's log
/// residuals about the group's mean, the other parameters held, alternating with the fit of the
/// others to every result, the trends held. Their standard errors come from the same within
/// residuals; a trend without repeats stays where it starts (no trend) and is flagged.

#include "analysis/calibration/CalibrationCase.hpp"
#include "analysis/calibration/CalibrationSurrogate.hpp"

#include <vector>

namespace gpuscale::analysis {

struct FittedParameter {
  double value = 0;          ///< efficiency / factor, or overhead seconds
  double standard_error = 0; ///< in the value's unit
  int results = 0;           ///< fitted results that depend on it
  bool identified = true;
  std::string note;          ///< why not identified
};

struct CalibrationFitResult {
  std::vector<double> x;                   ///< optimiser coordinates (ParameterSpace)
  std::vector<FittedParameter> parameters; ///< same order as ParameterSpace::parameters()
  double rms_log_error = 0;
  int evaluations = 0;
};

/// Fits over the cases with `use[i]` true (all when `use` is empty), starting at `start` (the
/// space's own start when empty). With `uncertainties` false only x is filled.
CalibrationFitResult fit_calibration(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                     const std::vector<bool>& use = {}, const std::vector<double>& start = {},
                                     bool uncertainties = true);

} // namespace gpuscale::analysis
