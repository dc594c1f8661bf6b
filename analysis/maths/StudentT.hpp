#pragma once
/// Student's t distribution, for confidence intervals of regression coefficients (Boost.Math's
/// students_t_distribution).

namespace gpuscale::analysis {

/// P(T <= t) for T ~ Student t with `dof` > 0 degrees of freedom.
double student_t_cdf(double t, double dof);

/// The t with P(T <= t) = p, for 0 < p < 1.
double student_t_quantile(double p, double dof);

} // namespace gpuscale::analysis
