#pragma once
/// Ordinary least squares with standard errors: the base of the scaling regressions.

#include <vector>

namespace gpuscale::analysis {

/// y ≈ X β, fitted by least squares (Eigen's column-pivoting Householder QR, so ill-conditioned columns
/// such as 1, N, N² stay accurate).
struct LinearFit {
  std::vector<double> coefficients;
  std::vector<double> standard_errors;           ///< sqrt of the diagonal of `covariance`
  std::vector<std::vector<double>> covariance;   ///< s² (XᵀX)⁻¹
  double residual_variance = 0;                  ///< s² = RSS / (n - p); 0 when n == p
  double r_squared = 0;                          ///< 1 - RSS / TSS (1 when TSS is 0)
  int degrees_of_freedom = 0;                    ///< n - p

  /// Two-sided confidence interval half-width of coefficient `i` at `level` (e.g. 0.95), from
  /// Student's t with degrees_of_freedom; 0 when there are none (an exact fit has no spread).
  double half_width(std::size_t i, double level) const;
};

/// `rows`: one vector of regressors per observation (include a 1 for an intercept). Throws
/// std::invalid_argument if there are fewer observations than coefficients or X is rank-deficient.
LinearFit fit_linear(const std::vector<std::vector<double>>& rows, const std::vector<double>& y);

} // namespace gpuscale::analysis
