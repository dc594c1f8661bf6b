#pragma once
/// The calibration's prediction intervals, from its own left-out errors: each validation mode of
/// sim/model/PredictionInterval.hpp predicts results the fit did not see, and the 10th and 90th
/// percentiles of its log residuals log(actual / predicted) bound an 80 % interval of that kind of
/// prediction. The coverage is measured honestly: each result is checked against the quantiles of
/// its mode computed without any result of its own system.

#include "analysis/CalibrationCase.hpp"
#include "analysis/CalibrationSurrogate.hpp"
#include "sim/model/PredictionInterval.hpp"

#include <vector>

namespace gpuscale::analysis {

/// One mode's left-out predictions.
struct ModeResiduals {
  model::PredictionRegime regime = model::PredictionRegime::CalibratedFamily;
  std::vector<std::size_t> cases;   ///< indices into the calibration cases
  std::vector<double> log_residuals; ///< log(actual / left-out predicted), parallel to `cases`
};

/// The left-out predictions of every mode. `loso_minutes` / `lofo_minutes`: leave_group_out by system
/// and by family (as validate computes them); the scale and round modes are refitted here, warm-started
/// at `fit_x`.
std::vector<ModeResiduals> validation_mode_residuals(const ParameterSpace& space,
                                                     const std::vector<CalibrationCase>& cases,
                                                     const std::vector<double>& fit_x,
                                                     const std::vector<double>& loso_minutes,
                                                     const std::vector<double>& lofo_minutes);

/// Quantiles of one mode at model::kIntervalLevel, with the leave-one-system-out coverage.
model::ResidualQuantiles summarise_mode(const ModeResiduals& mode, const std::vector<CalibrationCase>& cases);

/// Everything predict needs: the quantiles of every mode, the calibrated families and the largest
/// calibrated accelerator count per benchmark.
model::IntervalModel interval_model(const std::vector<ModeResiduals>& modes, const std::vector<CalibrationCase>& cases);

} // namespace gpuscale::analysis
