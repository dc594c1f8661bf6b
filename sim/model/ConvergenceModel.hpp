#pragma once
/// A benchmark's samples to converge at any global batch size: the reference points inside their
/// range (ConvergenceCurve, unchanged), the critical-batch-size fit outside it (ConvergenceFit),
/// with a 95 % interval.

#include "sim/model/ConvergenceCurve.hpp"
#include "sim/model/ConvergenceFit.hpp"

#include <optional>

namespace gpuscale::model {

/// Two-sided level of the intervals ConvergenceModel gives.
inline constexpr double kConvergenceIntervalLevel = 0.95;

/// Samples to converge at every batch size.
///
/// Inside [smallest, largest reference batch]: the piecewise log-log curve through the points,
/// interval low = high = samples (the points are the measurement; their own scatter is not
/// propagated). Above the largest batch, with a fit (at least ConvergenceFit::kMinPoints points),
/// the fit's growth from the largest point:
///
///   E(B) = E_end * (a + b B) / (a + b B_end)
///
/// which is continuous at the end point and non-decreasing in B (b >= 0). Interval, in log space:
///
///   log E(B) +- t(0.975, n - p) * sqrt(Var[growth] + 2 s^2)
///
/// Var[growth] from the fit's covariance (delta method); 2 s^2 because a reference point measured
/// at B would scatter about the curve as the end point does (s: the fit's relative scatter).
///
/// Below the smallest batch: the smallest point's samples. The MLPerf result logs below the
/// smallest RCP batch need about as many samples (ResNet, RetinaNet) or more (BERT at 66), not
/// the fewer the fit predicts. The interval is the union of the fit's and of
/// log E_end +- t sqrt(2) s.
/// Without a fit (fewer points), the nearest end's value and an unknown interval (NaN).
class ConvergenceModel {
public:
  explicit ConvergenceModel(ConvergenceCurve curve);

  ConvergenceEstimate samples_to_converge(int global_batch_size) const;

  const ConvergenceCurve& curve() const { return curve_; }
  /// nullopt for tables with fewer than ConvergenceFit::kMinPoints points.
  const std::optional<ConvergenceFit>& fit() const { return fit_; }

private:
  ConvergenceCurve curve_;
  std::optional<ConvergenceFit> fit_;
};

/// The check anyone can run on a table: drop the largest-batch point, build the model from the
/// rest, predict the dropped point.
struct HeldOutPrediction {
  int global_batch_size = 0;     ///< the dropped point's
  double measured_samples = 0;
  ConvergenceEstimate predicted; ///< from the other points (extrapolated, with its interval)
  /// predicted / measured - 1.
  double relative_error() const { return predicted.samples / measured_samples - 1; }
  /// The measured value lies inside the predicted interval.
  bool covered() const { return measured_samples >= predicted.samples_low && measured_samples <= predicted.samples_high; }
};

/// nullopt when the curve has fewer than ConvergenceFit::kMinPoints + 1 points.
std::optional<HeldOutPrediction> predict_largest_held_out(const ConvergenceCurve& curve);

} // namespace gpuscale::model
