#include "analysis/maths/KMeans.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gpuscale::analysis {
namespace {

/// SplitMix64 (S. Vigna): a small generator whose output is the same on every platform.
class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next()
  {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
  std::uint64_t state_;
};

double squared_distance(const Point& a, const Point& b)
{
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    sum += (a[i] - b[i]) * (a[i] - b[i]);
  return sum;
}

std::vector<Point> seed_plus_plus(const std::vector<Point>& points, int k, SplitMix64& random)
{
  std::vector<Point> centroids{points[static_cast<std::size_t>(random.uniform() * static_cast<double>(points.size()))]};
  std::vector<double> nearest(points.size(), std::numeric_limits<double>::infinity());
  while (static_cast<int>(centroids.size()) < k) {
    double total = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      nearest[i] = std::min(nearest[i], squared_distance(points[i], centroids.back()));
      total += nearest[i];
    }
    std::size_t chosen = 0;
    if (total > 0) { // pick with probability proportional to D(x)²
      double target = random.uniform() * total;
      for (chosen = 0; chosen + 1 < points.size(); ++chosen) {
        target -= nearest[chosen];
        if (target < 0)
          break;
      }
    } else { // every point coincides with a centroid
      chosen = static_cast<std::size_t>(random.uniform() * static_cast<double>(points.size()));
    }
    centroids.push_back(points[chosen]);
  }
  return centroids;
}

KMeansResult lloyd(const std::vector<Point>& points, std::vector<Point> centroids, int max_iterations)
{
  const std::size_t k = centroids.size();
  const std::size_t dims = points.front().size();
  KMeansResult result;
  result.assignment.assign(points.size(), -1);
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    bool changed = false;
    for (std::size_t i = 0; i < points.size(); ++i) {
      int best = 0;
      double best_distance = std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < k; ++c) {
        const double d = squared_distance(points[i], centroids[c]);
        if (d < best_distance) {
          best_distance = d;
          best = static_cast<int>(c);
        }
      }
      changed = changed || result.assignment[i] != best;
      result.assignment[i] = best;
    }
    if (!changed)
      break;
    std::vector<Point> sums(k, Point(dims, 0.0));
    std::vector<std::size_t> counts(k, 0);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto c = static_cast<std::size_t>(result.assignment[i]);
      ++counts[c];
      for (std::size_t d = 0; d < dims; ++d)
        sums[c][d] += points[i][d];
    }
    for (std::size_t c = 0; c < k; ++c)
      if (counts[c] > 0) // an emptied cluster keeps its centroid
        for (std::size_t d = 0; d < dims; ++d)
          centroids[c][d] = sums[c][d] / static_cast<double>(counts[c]);
  }
  result.centroids = std::move(centroids);
  for (std::size_t i = 0; i < points.size(); ++i)
    result.inertia += squared_distance(points[i], result.centroids[static_cast<std::size_t>(result.assignment[i])]);
  return result;
}

} // namespace

KMeansResult kmeans(const std::vector<Point>& points, int k, std::uint64_t seed, int restarts, int max_iterations)
{
  if (points.empty() || k < 1 || static_cast<std::size_t>(k) > points.size())
    throw std::invalid_argument("kmeans: need 1 <= k <= number of points");
  SplitMix64 random(seed);
  KMeansResult best;
  for (int run = 0; run < std::max(1, restarts); ++run) {
    KMeansResult candidate = lloyd(points, seed_plus_plus(points, k, random), max_iterations);
    if (run == 0 || candidate.inertia < best.inertia)
      best = std::move(candidate);
  }
  return best;
}

double silhouette_score(const std::vector<Point>& points, const std::vector<int>& assignment, int k)
{
  if (points.size() != assignment.size() || points.empty())
    throw std::invalid_argument("silhouette_score: one cluster per point expected");
  std::vector<std::size_t> sizes(static_cast<std::size_t>(k), 0);
  for (int c : assignment)
    ++sizes.at(static_cast<std::size_t>(c));
  double total = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto own = static_cast<std::size_t>(assignment[i]);
    if (sizes[own] <= 1)
      continue; // s(i) = 0
    std::vector<double> mean_distance(static_cast<std::size_t>(k), 0.0);
    for (std::size_t j = 0; j < points.size(); ++j)
      if (j != i)
        mean_distance[static_cast<std::size_t>(assignment[j])] += std::sqrt(squared_distance(points[i], points[j]));
    const double a = mean_distance[own] / static_cast<double>(sizes[own] - 1);
    double b = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < static_cast<std::size_t>(k); ++c)
      if (c != own && sizes[c] > 0)
        b = std::min(b, mean_distance[c] / static_cast<double>(sizes[c]));
    if (std::isinf(b))
      continue;
    const double denominator = std::max(a, b);
    total += denominator > 0 ? (b - a) / denominator : 0.0;
  }
  return total / static_cast<double>(points.size());
}

} // namespace gpuscale::analysis
