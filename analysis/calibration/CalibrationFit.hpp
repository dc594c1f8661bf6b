#pragma once
/// Fits the calibration parameters to MLPerf results: minimises a robust (pseudo-Huber) loss of the
/// log errors of the surrogate's time to train, within bounds (NLopt BOBYQA, derivative-free,
/// restarted once from its own optimum). The loss is quadratic within kRobustLogScale and linear
/// beyond, so a result whose software the model does not describe (tinygrad's BERT, DeepSpeed's
/// ZeRO-3 Llama 2: 3-4x slower than the kernels allow) pulls the shared factors with a bounded
/// force instead of one growing with its error. Standard errors come from the Gauss-Newton
/// covariance sigma^2 (J^T W J)^-1 of the log residuals at the optimum (J by central differences; W
/// the loss's reweighting, 1 within the scale, falling as 1/|r| beyond); a parameter no result depends on, one
/// at a bound, or one whose 1-sigma exceeds a factor 1.65 (0.5 in log) is flagged as not identified;
/// a correlation above 0.9 with another parameter is noted.
///
/// The two overheads (seconds per run, seconds per step: what the step model lacks) carry a Gaussian
/// prior centred on 0. They are nuisance terms: MLPerf starts its clock after initialisation, warm-up
/// and graph capture, so what is left per run is seconds, and per step milliseconds. Without the prior
/// they are unidentified wherever every result is long (an overhead of 50 s is 3 % of a 30-minute run,
/// within the noise), and a fit on small systems set ResNet-50's to 50 s, which then predicted the
/// 11-second 3584-GPU result at 58 s. The fit minimises the posterior's negative log (MAP):
///   sum_i rho(r_i) + kPriorResidualLogSd^2 sum_j (x_j / tau_j)^2   (rho: the robust loss, r^2 near 0)
/// and its covariance adds the prior's information, (J^T W J + kPriorResidualLogSd^2 diag(1/tau^2))^-1.
/// Software maturity (ParameterSpace::Group::Maturity) is measured within the dated repeats only
/// (ParameterSpace::repeat_groups): its parameters minimise the spread of each repeat group's log
/// residuals about the group's mean, the other parameters held, alternating with the fit of the
/// others to every result, maturity held. Fitted on every result it would absorb any model error
/// that happens to correlate with the date across different systems. Its standard errors come from
/// the same within residuals (Gauss-Newton on them); a benchmark without repeats keeps no maturity
/// gap (1 at launch) and is flagged.

#include "analysis/calibration/CalibrationCase.hpp"
#include "analysis/calibration/CalibrationSurrogate.hpp"

#include <vector>

namespace gpuscale::analysis {

/// The weight the robust loss gives a result of log error `log_residual` relative to squared errors,
/// rho'(r) / (2 r) = 1 / sqrt(1 + (r/c)^2): 1 within kRobustLogScale, 1/4 at about 21 %. It is the
/// weight of iteratively reweighted least squares and of the Gauss-Newton covariance.
double robust_weight(double log_residual);

/// Below this robust weight a result counts as an outlier of the fit (`calibrate` lists them): a log
/// error beyond outlier_log_error(), sqrt(15) kRobustLogScale, about 21 %.
inline constexpr double kOutlierWeight = 0.25;

/// The absolute log error at which robust_weight falls to kOutlierWeight.
double outlier_log_error();

/// Prior scale of overhead[benchmark], seconds per run.
inline constexpr double kRunOverheadPriorSd_s = 10.0;
/// Prior scale of step_overhead[benchmark], seconds per step.
inline constexpr double kStepOverheadPriorSd_s = 0.005;
/// Prior scale of log maturity.at_launch.<benchmark> about 0 (mature at launch): a factor 1.65 at one
/// sigma. The dated repeats fix the gain between two software dates, not the level it starts from: a
/// low fraction at launch with a slowly closing gap and a high one with a fast closing gap give the
/// same gain over the few tenths of a year a repeat spans. On the v3.0-v4.1 results alone (validate's
/// leave-round-out fold) the within fit without this prior ran down that valley to the bound, 0.05,
/// for Llama 2 and Stable Diffusion, and their v5.0 results were then predicted 7 to 9 times too
/// slow. The prior picks the least immature point of the valley.
inline constexpr double kMaturityAtLaunchPriorSd = 0.5;
/// Scale of the fit's robust (pseudo-Huber) loss on log residuals: errors up to about 5 % (the
/// spread of one system's scores between rounds and submitters) count quadratically, larger ones
/// linearly, like the median error the validation reports. Chosen by cross-validation among 0.025,
/// 0.05, 0.1, 0.2 and plain least squares (docs/CALIBRATION.md, "Robust loss").
inline constexpr double kRobustLogScale = 0.05;
/// The residual log-sd that weighs the prior against the data (the committed fit's rms log error is 0.15-0.18).
inline constexpr double kPriorResidualLogSd = 0.15;

/// The prior's scale of parameter `p` in optimiser coordinates; 0 for a parameter without prior.
double prior_sd(const ParameterSpace::Parameter& p);

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
