#pragma once
/// k-means clustering with k-means++ seeding (D. Arthur and S. Vassilvitskii, "k-means++: the
/// advantages of careful seeding", SODA 2007) and the silhouette score (P. Rousseeuw, J. Comput.
/// Appl. Math. 20, 1987) to choose k. Deterministic: the random numbers come from a SplitMix64
/// generator with a fixed seed, not from the standard library's implementation-defined distributions.

#include <cstdint>
#include <vector>

namespace gpuscale::analysis {

using Point = std::vector<double>;

struct KMeansResult {
  std::vector<int> assignment;   ///< cluster of each point, 0..k-1
  std::vector<Point> centroids;
  double inertia = 0;            ///< sum of squared distances to the assigned centroid
};

/// Best of `restarts` runs of Lloyd's algorithm (each seeded by k-means++), by inertia.
/// Requires 1 <= k <= number of points.
KMeansResult kmeans(const std::vector<Point>& points, int k, std::uint64_t seed = 42, int restarts = 10,
                    int max_iterations = 300);

/// Mean silhouette s = (b - a) / max(a, b) over all points (0 for a point alone in its cluster).
double silhouette_score(const std::vector<Point>& points, const std::vector<int>& assignment, int k);

} // namespace gpuscale::analysis
