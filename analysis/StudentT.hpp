#pragma once
/// Student's t distribution, for confidence intervals of regression coefficients.

namespace gpuscale::analysis {

/// Regularised incomplete beta function I_x(a, b), by Lentz's continued fraction
/// (Numerical Recipes, 3rd ed., section 6.4). 0 <= x <= 1, a, b > 0.
double regularized_incomplete_beta(double x, double a, double b);

/// P(T <= t) for T ~ Student t with `dof` degrees of freedom.
double student_t_cdf(double t, double dof);

/// The t with P(T <= t) = p, for 0 < p < 1 (bisection on the cdf to 1e-12).
double student_t_quantile(double p, double dof);

} // namespace gpuscale::analysis
