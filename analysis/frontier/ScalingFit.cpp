#include "analysis/frontier/ScalingFit.hpp"

#include "analysis/maths/LinearRegression.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

namespace gpuscale::analysis {
namespace {

std::size_t distinct(const std::vector<double>& values)
{
  return std::set<double>(values.begin(), values.end()).size();
}

/// Half-width of the ratio β_i / β_0 by the delta method:
/// var(β_i/β_0) ≈ var(β_i)/β_0² + β_i² var(β_0)/β_0⁴ - 2 β_i cov(β_0, β_i)/β_0³.
Estimate ratio(const LinearFit& fit, std::size_t i)
{
  const double b0 = fit.coefficients[0];
  const double bi = fit.coefficients[i];
  const auto& c = fit.covariance;
  const double variance = c[i][i] / (b0 * b0) + bi * bi * c[0][0] / std::pow(b0, 4) - 2 * bi * c[0][i] / std::pow(b0, 3);
  const double se = std::sqrt(std::max(0.0, variance));
  const double scale = fit.standard_errors[i] > 0 ? fit.half_width(i, 0.95) / fit.standard_errors[i] : 0.0;
  return {bi / b0, scale * se};
}

std::optional<UslFit> fit_scalability(const std::vector<double>& gpus, const std::vector<double>& time_s, bool amdahl)
{
  if (gpus.size() != time_s.size())
    throw std::invalid_argument("scaling fit: one time per GPU count expected");
  if (distinct(gpus) < (amdahl ? 2u : 3u))
    return std::nullopt;
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const double n = gpus[i];
    rows.push_back(amdahl ? std::vector<double>{1.0, n - 1} : std::vector<double>{1.0, n - 1, n * (n - 1)});
    y.push_back(n * time_s[i]);
  }
  const LinearFit fit = fit_linear(rows, y);
  UslFit result;
  result.amdahl = amdahl;
  result.points = static_cast<int>(gpus.size());
  result.r_squared = fit.r_squared;
  result.single_gpu_time_s = {fit.coefficients[0], fit.half_width(0, 0.95)};
  result.contention = ratio(fit, 1);
  if (!amdahl)
    result.coherency = ratio(fit, 2);
  return result;
}

} // namespace

double UslFit::time_s(double gpus) const
{
  return single_gpu_time_s.value * (1 + contention.value * (gpus - 1) + coherency.value * gpus * (gpus - 1)) / gpus;
}

std::optional<PowerLawFit> fit_power_law(const std::vector<double>& gpus, const std::vector<double>& time_s)
{
  if (gpus.size() != time_s.size())
    throw std::invalid_argument("fit_power_law: one time per GPU count expected");
  if (distinct(gpus) < 2)
    return std::nullopt;
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    rows.push_back({1.0, std::log(gpus[i])});
    y.push_back(std::log(time_s[i]));
  }
  const LinearFit fit = fit_linear(rows, y);
  PowerLawFit result;
  result.points = static_cast<int>(gpus.size());
  result.r_squared = fit.r_squared;
  result.exponent = {fit.coefficients[1], fit.half_width(1, 0.95)};
  // exp of the intercept's interval is asymmetric; report the larger side.
  const double a = std::exp(fit.coefficients[0]);
  const double w = fit.half_width(0, 0.95);
  result.coefficient = {a, std::max(std::exp(fit.coefficients[0] + w) - a, a - std::exp(fit.coefficients[0] - w))};
  return result;
}

std::optional<UslFit> fit_amdahl(const std::vector<double>& gpus, const std::vector<double>& time_s)
{
  return fit_scalability(gpus, time_s, true);
}

std::optional<UslFit> fit_usl(const std::vector<double>& gpus, const std::vector<double>& time_s)
{
  return fit_scalability(gpus, time_s, false);
}

} // namespace gpuscale::analysis
