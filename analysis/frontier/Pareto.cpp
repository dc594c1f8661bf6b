#include "analysis/frontier/Pareto.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace gpuscale::analysis {

std::vector<std::size_t> pareto_front(const std::vector<double>& x, const std::vector<double>& y)
{
  if (x.size() != y.size())
    throw std::invalid_argument("pareto_front: x and y differ in length");
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isnan(x[i]) && !std::isnan(y[i]))
      order.push_back(i);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return x[a] != x[b] ? x[a] < x[b] : (y[a] != y[b] ? y[a] < y[b] : a < b);
  });
  // Sweep by increasing x: a point is on the front iff its y is below every y seen at a smaller x,
  // or equal to the best y with the same x (an identical point).
  std::vector<std::size_t> front;
  double best_y = std::numeric_limits<double>::infinity();
  double best_x = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i : order) {
    if (y[i] < best_y) {
      front.push_back(i);
      best_y = y[i];
      best_x = x[i];
    } else if (y[i] == best_y && x[i] == best_x) {
      front.push_back(i);
    }
  }
  return front;
}

} // namespace gpuscale::analysis
