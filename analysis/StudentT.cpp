#include "analysis/StudentT.hpp"

#include <cmath>
#include <stdexcept>

namespace gpuscale::analysis {
namespace {

/// Continued fraction of the incomplete beta function (modified Lentz), NR eq. 6.4.5.
double beta_continued_fraction(double x, double a, double b)
{
  constexpr double tiny = 1e-300;
  constexpr double epsilon = 1e-15;
  const double qab = a + b;
  const double qap = a + 1;
  const double qam = a - 1;
  double c = 1;
  double d = 1 - qab * x / qap;
  if (std::fabs(d) < tiny)
    d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    d = std::fabs(d) < tiny ? tiny : d;
    c = 1 + aa / c;
    c = std::fabs(c) < tiny ? tiny : c;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    d = std::fabs(d) < tiny ? tiny : d;
    c = 1 + aa / c;
    c = std::fabs(c) < tiny ? tiny : c;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < epsilon)
      return h;
  }
  return h;
}

} // namespace

double regularized_incomplete_beta(double x, double a, double b)
{
  if (x < 0 || x > 1 || a <= 0 || b <= 0)
    throw std::invalid_argument("regularized_incomplete_beta: x in [0, 1] and a, b > 0 expected");
  if (x == 0 || x == 1)
    return x;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use the symmetry otherwise.
  if (x < (a + 1) / (a + b + 2))
    return front * beta_continued_fraction(x, a, b) / a;
  return 1 - front * beta_continued_fraction(1 - x, b, a) / b;
}

double student_t_cdf(double t, double dof)
{
  if (dof <= 0)
    throw std::invalid_argument("student_t_cdf: dof must be positive");
  // Tail P(T > |t|) = I_x(dof/2, 1/2) / 2 with x = dof/(dof + t²). Near t = 0, x rounds to 1; use the
  // complement I_{1-x}(1/2, dof/2) with 1 - x = t²/(dof + t²) computed directly instead.
  const double t2 = t * t;
  const double tail = t2 < dof ? 0.5 * (1 - regularized_incomplete_beta(t2 / (dof + t2), 0.5, dof / 2))
                               : 0.5 * regularized_incomplete_beta(dof / (dof + t2), dof / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double p, double dof)
{
  if (!(p > 0 && p < 1))
    throw std::invalid_argument("student_t_quantile: p must be in (0, 1)");
  double low = -1;
  double high = 1;
  while (student_t_cdf(low, dof) > p)
    low *= 2;
  while (student_t_cdf(high, dof) < p)
    high *= 2;
  for (int i = 0; i < 200 && high - low > 1e-12 * std::max(1.0, std::fabs(high)); ++i) {
    const double mid = 0.5 * (low + high);
    (student_t_cdf(mid, dof) < p ? low : high) = mid;
  }
  return 0.5 * (low + high);
}

} // namespace gpuscale::analysis
