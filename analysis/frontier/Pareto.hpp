#pragma once
/// Pareto frontier of two quantities to minimise (time against GPU-hours, cost or energy).

#include <cstddef>
#include <vector>

namespace gpuscale::analysis {

/// Indices of the points no other point dominates (another point is at least as good in both and
/// better in one), sorted by increasing x then y. Identical points are all kept. Points with a NaN
/// coordinate are never on the front.
std::vector<std::size_t> pareto_front(const std::vector<double>& x, const std::vector<double>& y);

} // namespace gpuscale::analysis
