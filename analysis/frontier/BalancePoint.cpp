#include "analysis/frontier/BalancePoint.hpp"

#include <limits>

namespace gpuscale::analysis {

BalancePoint balance_point(const ScalingSeries& series, double threshold)
{
  BalancePoint balance;
  const auto& points = series.points;
  for (std::size_t k = 1; k < points.size(); ++k)
    if (points[k].marginal_gain < threshold) {
      balance.point = k - 1;
      balance.gpus = points[k - 1].gpus;
      balance.next_marginal_gain = points[k].marginal_gain;
      balance.limited = true;
      return balance;
    }
  balance.point = points.empty() ? 0 : points.size() - 1;
  balance.gpus = points.empty() ? 0 : points.back().gpus;
  balance.next_marginal_gain = std::numeric_limits<double>::quiet_NaN();
  return balance;
}

} // namespace gpuscale::analysis
