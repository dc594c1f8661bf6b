#include "analysis/frontier/Topsis.hpp"

#include <cmath>
#include <stdexcept>

namespace gpuscale::analysis {

std::vector<double> topsis_closeness(const std::vector<std::vector<double>>& matrix,
                                     const std::vector<Criterion>& criteria)
{
  const std::size_t m = criteria.size();
  double total_weight = 0;
  for (const auto& criterion : criteria) {
    if (!(criterion.weight >= 0))
      throw std::invalid_argument("topsis: weight of '" + criterion.name + "' must not be negative");
    total_weight += criterion.weight;
  }
  if (m == 0 || total_weight <= 0)
    throw std::invalid_argument("topsis: at least one criterion with a positive weight is needed");
  std::vector<double> norm(m, 0.0);
  for (const auto& row : matrix) {
    if (row.size() != m)
      throw std::invalid_argument("topsis: every alternative needs one value per criterion");
    for (std::size_t j = 0; j < m; ++j)
      norm[j] += row[j] * row[j];
  }
  for (std::size_t j = 0; j < m; ++j) {
    norm[j] = std::sqrt(norm[j]);
    if (!(norm[j] > 0) && !matrix.empty())
      throw std::invalid_argument("topsis: criterion '" + criteria[j].name + "' is zero for every alternative");
  }
  std::vector<std::vector<double>> v(matrix.size(), std::vector<double>(m));
  std::vector<double> ideal(m), anti(m);
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t i = 0; i < matrix.size(); ++i)
      v[i][j] = criteria[j].weight / total_weight * matrix[i][j] / norm[j];
    for (std::size_t i = 0; i < matrix.size(); ++i) {
      const bool better = criteria[j].benefit ? v[i][j] > ideal[j] : v[i][j] < ideal[j];
      const bool worse = criteria[j].benefit ? v[i][j] < anti[j] : v[i][j] > anti[j];
      if (i == 0 || better)
        ideal[j] = v[i][j];
      if (i == 0 || worse)
        anti[j] = v[i][j];
    }
  }
  std::vector<double> closeness;
  for (const auto& row : v) {
    double plus = 0, minus = 0;
    for (std::size_t j = 0; j < m; ++j) {
      plus += (row[j] - ideal[j]) * (row[j] - ideal[j]);
      minus += (row[j] - anti[j]) * (row[j] - anti[j]);
    }
    plus = std::sqrt(plus);
    minus = std::sqrt(minus);
    closeness.push_back(plus + minus > 0 ? minus / (plus + minus) : 1.0);
  }
  return closeness;
}

} // namespace gpuscale::analysis
