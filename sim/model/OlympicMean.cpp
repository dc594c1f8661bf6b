#include "sim/model/OlympicMean.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace gpuscale::model {

double olympic_mean(std::vector<double> values)
{
  if (values.size() < 3)
    throw std::invalid_argument("olympic_mean: needs at least 3 values, got " + std::to_string(values.size()));
  std::sort(values.begin(), values.end());
  // Summed in ascending order. numpy may differ in the last bit; the committed tables hold what this
  // function returns, so the regeneration test compares like with like.
  const double sum = std::accumulate(values.begin() + 1, values.end() - 1, 0.0);
  return sum / static_cast<double>(values.size() - 2);
}

} // namespace gpuscale::model
