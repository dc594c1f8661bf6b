#include "analysis/maths/LinearRegression.hpp"

#include "analysis/maths/StudentT.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gpuscale::analysis {

double LinearFit::half_width(std::size_t i, double level) const
{
  if (degrees_of_freedom < 1)
    return 0;
  return student_t_quantile(0.5 + level / 2, degrees_of_freedom) * standard_errors.at(i);
}

LinearFit fit_linear(const std::vector<std::vector<double>>& rows, const std::vector<double>& y)
{
  const std::size_t n = rows.size();
  if (n == 0 || y.size() != n)
    throw std::invalid_argument("fit_linear: one response per row expected");
  const std::size_t p = rows.front().size();
  if (p == 0 || n < p)
    throw std::invalid_argument("fit_linear: need at least as many observations as coefficients");
  Eigen::MatrixXd x(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(p));
  for (std::size_t i = 0; i < n; ++i) {
    if (rows[i].size() != p)
      throw std::invalid_argument("fit_linear: rows of different lengths");
    for (std::size_t j = 0; j < p; ++j)
      x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  }
  const Eigen::VectorXd b = Eigen::Map<const Eigen::VectorXd>(y.data(), static_cast<Eigen::Index>(n));

  // Column-pivoting Householder QR, X P = Q R: accurate for ill-conditioned columns such as 1, N, N²,
  // and it reveals the rank.
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(x);
  if (qr.rank() < static_cast<Eigen::Index>(p))
    throw std::invalid_argument("fit_linear: the regressors are linearly dependent");
  const Eigen::VectorXd beta = qr.solve(b);

  LinearFit fit;
  fit.coefficients.assign(beta.data(), beta.data() + beta.size());
  const double rss = (x * beta - b).squaredNorm();
  const double tss = (b.array() - b.mean()).matrix().squaredNorm();
  fit.degrees_of_freedom = static_cast<int>(n - p);
  fit.residual_variance = fit.degrees_of_freedom > 0 ? rss / fit.degrees_of_freedom : 0.0;
  fit.r_squared = tss > 0 ? 1 - rss / tss : 1.0;

  // (XᵀX)⁻¹ = P R⁻¹ R⁻ᵀ Pᵀ with R the leading p x p triangle.
  const auto p_index = static_cast<Eigen::Index>(p);
  const Eigen::MatrixXd r = qr.matrixR().topLeftCorner(p_index, p_index).triangularView<Eigen::Upper>();
  const Eigen::MatrixXd r_inverse =
      r.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(p_index, p_index));
  const Eigen::MatrixXd permuted = r_inverse * r_inverse.transpose();
  const Eigen::MatrixXd unscaled = qr.colsPermutation() * permuted * qr.colsPermutation().transpose();
  fit.covariance.assign(p, std::vector<double>(p, 0.0));
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < p; ++j)
      fit.covariance[i][j] =
          fit.residual_variance * unscaled(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j));
  for (std::size_t i = 0; i < p; ++i)
    fit.standard_errors.push_back(std::sqrt(std::max(0.0, fit.covariance[i][i])));
  return fit;
}

} // namespace gpuscale::analysis
