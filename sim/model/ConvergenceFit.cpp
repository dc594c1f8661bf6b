#include "sim/model/ConvergenceFit.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gpuscale::model {
namespace {

/// One solution of the least-squares problem; cov_* are (X^T X)^-1, still to be scaled by s^2.
struct Candidate {
  double a = 0, b = 0;
  double cov_aa = 0, cov_ab = 0, cov_bb = 0;
  double residual_sum_squares = std::numeric_limits<double>::infinity();
  int parameters = 0;
  std::string constraint;
};

double relative_rss(const std::vector<ConvergencePoint>& points, double a, double b)
{
  double sum = 0;
  for (const auto& p : points) {
    const double r = (a + b * p.global_batch_size - p.value) / p.value;
    sum += r * r;
  }
  return sum;
}

/// Normal equations of sum (a x1 + b x2 - 1)^2 with x = (1/E, B/E): G = X^T X, g = X^T 1.
struct NormalEquations {
  double g11 = 0, g12 = 0, g22 = 0, r1 = 0, r2 = 0;
};

NormalEquations normal_equations(const std::vector<ConvergencePoint>& points)
{
  NormalEquations n;
  for (const auto& p : points) {
    const double x1 = 1.0 / p.value;
    const double x2 = p.global_batch_size / p.value;
    n.g11 += x1 * x1;
    n.g12 += x1 * x2;
    n.g22 += x2 * x2;
    n.r1 += x1;
    n.r2 += x2;
  }
  return n;
}

} // namespace

ConvergenceFit::ConvergenceFit(const std::vector<ConvergencePoint>& points)
{
  if (points.size() < kMinPoints)
    throw std::invalid_argument("ConvergenceFit: " + std::to_string(points.size()) + " points, at least " +
                                std::to_string(kMinPoints) + " needed");
  const NormalEquations n = normal_equations(points);
  const double det = n.g11 * n.g22 - n.g12 * n.g12;
  const std::size_t count = points.size();

  Candidate best;
  if (det > 0) {
    const double a = (n.g22 * n.r1 - n.g12 * n.r2) / det;
    const double b = (n.g11 * n.r2 - n.g12 * n.r1) / det;
    if (a >= 0 && b >= 0) {
      best.a = a;
      best.b = b;
      best.cov_aa = n.g22 / det;
      best.cov_ab = -n.g12 / det;
      best.cov_bb = n.g11 / det;
      best.residual_sum_squares = relative_rss(points, a, b);
      best.parameters = 2;
    }
  }
  if (!std::isfinite(best.residual_sum_squares)) {
    // On the boundary of a >= 0, b >= 0: one free parameter each, closed form r / g.
    Candidate steps_only; // a = 0: E = S_min B
    steps_only.b = n.r2 / n.g22;
    steps_only.cov_bb = 1 / n.g22;
    steps_only.residual_sum_squares = relative_rss(points, 0, steps_only.b);
    steps_only.parameters = 1;
    steps_only.constraint = "E_min = 0";
    Candidate samples_only; // b = 0: E = E_min
    samples_only.a = n.r1 / n.g11;
    samples_only.cov_aa = 1 / n.g11;
    samples_only.residual_sum_squares = relative_rss(points, samples_only.a, 0);
    samples_only.parameters = 1;
    samples_only.constraint = "S_min = 0";
    best = steps_only.residual_sum_squares <= samples_only.residual_sum_squares ? steps_only : samples_only;
  }
  a_ = best.a;
  b_ = best.b;
  constraint_ = best.constraint;
  dof_ = static_cast<int>(count) - best.parameters;
  const double variance = best.residual_sum_squares / dof_;
  scatter_ = std::sqrt(variance);
  cov_aa_ = variance * best.cov_aa;
  cov_ab_ = variance * best.cov_ab;
  cov_bb_ = variance * best.cov_bb;
}

double ConvergenceFit::noise_batch_size() const
{
  return b_ > 0 ? a_ / b_ : std::numeric_limits<double>::infinity();
}

double ConvergenceFit::min_samples_error() const { return std::sqrt(cov_aa_); }
double ConvergenceFit::min_steps_error() const { return std::sqrt(cov_bb_); }

double ConvergenceFit::samples_at(double global_batch_size) const
{
  return a_ + b_ * global_batch_size;
}

double ConvergenceFit::log_growth(double from_batch_size, double to_batch_size) const
{
  return std::log(samples_at(to_batch_size)) - std::log(samples_at(from_batch_size));
}

double ConvergenceFit::log_growth_variance(double from_batch_size, double to_batch_size) const
{
  // d/da log(a + bB) = 1 / E(B), d/db = B / E(B).
  const double da = 1 / samples_at(to_batch_size) - 1 / samples_at(from_batch_size);
  const double db = to_batch_size / samples_at(to_batch_size) - from_batch_size / samples_at(from_batch_size);
  return da * da * cov_aa_ + 2 * da * db * cov_ab_ + db * db * cov_bb_;
}

} // namespace gpuscale::model
