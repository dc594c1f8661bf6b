#pragma once
/// The critical-batch-size relation of McCandlish, Kaplan, Amodei et al., "An Empirical Model of
/// Large-Batch Training" (arXiv 1812.06162, eq. 2.11 and section 2.2), fitted to a convergence
/// table's reference points:
///
///   samples E(B) = E_min (1 + B / B_noise)      steps S(B) = S_min (1 + B_noise / B)
///   E_min = S_min B_noise
///
/// Below B_noise a larger batch costs few extra samples (perfect scaling of steps), above it the
/// steps stop falling and every doubling of the batch nearly doubles the samples.

#include "sim/model/ConvergenceCurve.hpp"

#include <string>
#include <vector>

namespace gpuscale::model {

/// Least-squares fit of E(B) = a + b B (a = E_min, b = S_min, B_noise = a / b) to points given in
/// samples.
///
/// The residuals are relative, r_i = (a + b B_i - E_i) / E_i (to first order the residuals of
/// log E): the reference points are means of 10 to 28 runs whose spread grows with the sample
/// count, and a relative residual is the same whether E or S = E / B is fitted. The problem is
/// linear in (a, b), so it has a closed form: minimise sum_i (a x_i1 + b x_i2 - 1)^2 with
/// x_i = (1 / E_i, B_i / E_i). The physics needs a >= 0 and b >= 0 (samples never fall as the
/// batch grows); when the unconstrained optimum breaks one, the better of the two one-parameter
/// fits on the boundary (a = 0: constant steps; b = 0: constant samples) is taken.
///
/// Uncertainty: residual variance s^2 = sum r_i^2 / (n - p) with p the free parameters, parameter
/// covariance s^2 (X^T X)^-1 (zero rows and columns for a parameter held at 0).
class ConvergenceFit {
public:
  /// Fewest points a fit needs: two parameters and at least one residual degree of freedom.
  static constexpr std::size_t kMinPoints = 3;

  /// `points_in_samples`: as ConvergenceCurve's (batch sizes increasing, values positive). Throws
  /// std::invalid_argument with fewer than kMinPoints points.
  explicit ConvergenceFit(const std::vector<ConvergencePoint>& points_in_samples);

  /// E_min: samples to converge as the batch goes to 0.
  double min_samples() const { return a_; }
  /// S_min: optimizer steps to converge as the batch goes to infinity (samples per unit batch).
  double min_steps() const { return b_; }
  /// B_noise = E_min / S_min; infinite when S_min = 0 (samples do not grow with the batch).
  double noise_batch_size() const;
  /// 1-sigma standard errors of E_min and S_min, from the covariance.
  double min_samples_error() const;
  double min_steps_error() const;
  /// RMS relative residual s of the points about the fit.
  double relative_scatter() const { return scatter_; }
  int degrees_of_freedom() const { return dof_; }
  /// "": both parameters free; otherwise the parameter held at 0 ("E_min = 0", "S_min = 0").
  const std::string& constraint() const { return constraint_; }

  /// E(B) of the fit.
  double samples_at(double global_batch_size) const;
  /// log E(to) - log E(from): how much the fit says samples grow between two batch sizes.
  double log_growth(double from_batch_size, double to_batch_size) const;
  /// Variance of log_growth from the parameter covariance (delta method).
  double log_growth_variance(double from_batch_size, double to_batch_size) const;

private:
  double a_ = 0, b_ = 0;
  double cov_aa_ = 0, cov_ab_ = 0, cov_bb_ = 0;
  double scatter_ = 0;
  int dof_ = 0;
  std::string constraint_;
};

} // namespace gpuscale::model
