#include "sim/model/SoftwareTrend.hpp"

#include <cmath>

namespace gpuscale::model {

double software_trend_factor(double rho_per_year, double years_after_reference)
{
  if (years_after_reference == 0)
    return 1.0;
  return std::pow(rho_per_year, -years_after_reference);
}

} // namespace gpuscale::model
