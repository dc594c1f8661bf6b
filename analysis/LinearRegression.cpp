#include "analysis/LinearRegression.hpp"

#include "analysis/StudentT.hpp"

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
  // Column-major copy of X and of y, reduced in place by Householder reflections.
  std::vector<std::vector<double>> a(p, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    if (rows[i].size() != p)
      throw std::invalid_argument("fit_linear: rows of different lengths");
    for (std::size_t j = 0; j < p; ++j)
      a[j][i] = rows[i][j];
  }
  std::vector<double> b = y;
  for (std::size_t k = 0; k < p; ++k) {
    double norm = 0;
    for (std::size_t i = k; i < n; ++i)
      norm += a[k][i] * a[k][i];
    norm = std::sqrt(norm);
    double scale = 0;
    for (std::size_t i = 0; i < n; ++i)
      scale = std::max(scale, std::fabs(a[k][i]));
    if (norm <= 1e-13 * std::max(scale, 1e-300))
      throw std::invalid_argument("fit_linear: the regressors are linearly dependent");
    const double alpha = a[k][k] > 0 ? -norm : norm;
    std::vector<double> v(n, 0.0);
    v[k] = a[k][k] - alpha;
    for (std::size_t i = k + 1; i < n; ++i)
      v[i] = a[k][i];
    double vv = 0;
    for (std::size_t i = k; i < n; ++i)
      vv += v[i] * v[i];
    auto reflect = [&](std::vector<double>& column) {
      double dot = 0;
      for (std::size_t i = k; i < n; ++i)
        dot += v[i] * column[i];
      const double factor = 2 * dot / vv;
      for (std::size_t i = k; i < n; ++i)
        column[i] -= factor * v[i];
    };
    for (std::size_t j = k; j < p; ++j)
      reflect(a[j]);
    reflect(b);
  }
  // R is the upper triangle: R[i][j] = a[j][i] for i <= j. Solve R β = (Qᵀy)[0..p).
  LinearFit fit;
  fit.coefficients.assign(p, 0.0);
  for (std::size_t i = p; i-- > 0;) {
    double sum = b[i];
    for (std::size_t j = i + 1; j < p; ++j)
      sum -= a[j][i] * fit.coefficients[j];
    fit.coefficients[i] = sum / a[i][i];
  }
  double rss = 0;
  double mean = 0;
  for (double value : y)
    mean += value / static_cast<double>(n);
  double tss = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double predicted = 0;
    for (std::size_t j = 0; j < p; ++j)
      predicted += rows[i][j] * fit.coefficients[j];
    rss += (y[i] - predicted) * (y[i] - predicted);
    tss += (y[i] - mean) * (y[i] - mean);
  }
  fit.degrees_of_freedom = static_cast<int>(n - p);
  fit.residual_variance = fit.degrees_of_freedom > 0 ? rss / fit.degrees_of_freedom : 0.0;
  fit.r_squared = tss > 0 ? 1 - rss / tss : 1.0;
  // (XᵀX)⁻¹ = R⁻¹ R⁻ᵀ: invert the triangle column by column.
  std::vector<std::vector<double>> r_inverse(p, std::vector<double>(p, 0.0));
  for (std::size_t c = 0; c < p; ++c)
    for (std::size_t i = c + 1; i-- > 0;) {
      double sum = i == c ? 1.0 : 0.0;
      for (std::size_t j = i + 1; j <= c; ++j)
        sum -= a[j][i] * r_inverse[j][c];
      r_inverse[i][c] = sum / a[i][i];
    }
  fit.covariance.assign(p, std::vector<double>(p, 0.0));
  for (std::size_t i = 0; i < p; ++i)
    for (std::size_t j = 0; j < p; ++j) {
      double sum = 0;
      for (std::size_t k = std::max(i, j); k < p; ++k)
        sum += r_inverse[i][k] * r_inverse[j][k];
      fit.covariance[i][j] = fit.residual_variance * sum;
    }
  for (std::size_t i = 0; i < p; ++i)
    fit.standard_errors.push_back(std::sqrt(std::max(0.0, fit.covariance[i][i])));
  return fit;
}

} // namespace gpuscale::analysis
