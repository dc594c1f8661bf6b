#include "analysis/maths/StudentT.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <stdexcept>

namespace gpuscale::analysis {

double student_t_cdf(double t, double dof)
{
  if (!(dof > 0))
    throw std::invalid_argument("student_t_cdf: dof must be positive");
  return boost::math::cdf(boost::math::students_t_distribution<double>(dof), t);
}

double student_t_quantile(double p, double dof)
{
  if (!(p > 0 && p < 1))
    throw std::invalid_argument("student_t_quantile: p must be in (0, 1)");
  if (!(dof > 0))
    throw std::invalid_argument("student_t_quantile: dof must be positive");
  return boost::math::quantile(boost::math::students_t_distribution<double>(dof), p);
}

} // namespace gpuscale::analysis
