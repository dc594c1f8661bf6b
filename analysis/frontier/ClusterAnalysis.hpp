#pragma once
/// Clustering of configurations: k-means (k-means++ seeding, fixed seed) on standardised features
///   log2 GPU count, GPU generation (log10 of peak FLOP/s per GPU at the training precision),
///   log10 time, log10 throughput per GPU, scaling efficiency, host CPU cores per GPU.
/// Each feature is standardised to mean 0 and standard deviation 1; a feature constant over the data
/// is left out. k is the one with the best mean silhouette among 2..max_k when there are at least
/// kMinPointsForSilhouette configurations, else kDefaultClusters (5, or fewer if there are fewer
/// configurations). Feature importance is the share of a feature's variance between clusters
/// (η² = between-cluster sum of squares / total sum of squares): 1 means the clusters differ only in it.

#include "analysis/frontier/Configuration.hpp"
#include "analysis/maths/KMeans.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

inline constexpr int kDefaultClusters = 5;
inline constexpr std::size_t kMinPointsForSilhouette = 10;

struct ClusterOptions {
  std::optional<int> k; ///< fixed k instead of choosing by silhouette
  int max_k = 8;
  std::uint64_t seed = 42;
};

struct ClusterFeature {
  std::string name;
  std::string unit;          ///< of `mean` in the descriptions
  double importance = 0;     ///< η²
};

struct ClusterDescription {
  int id = 0;
  std::size_t size = 0;
  std::vector<double> mean;       ///< per feature, in natural units (GPUs, FLOP/s, s, samples/s, -, cores)
  std::vector<double> centroid_z; ///< per feature, standardised
  std::string summary;            ///< "many GPUs, low efficiency; mostly resnet50 on dgx-a100-..."
};

struct ClusterResult {
  int k = 0;
  bool chosen_by_silhouette = false;
  std::vector<std::pair<int, double>> silhouettes; ///< (k, mean silhouette) for every k tried
  double silhouette = 0;                            ///< of the chosen k
  std::vector<ClusterFeature> features;             ///< those used, in order
  std::vector<std::string> dropped_features;        ///< constant over the data
  std::vector<int> assignment;                      ///< per configuration
  std::vector<ClusterDescription> clusters;
};

/// nullopt when there are fewer than 2 configurations or no feature varies.
std::optional<ClusterResult> cluster_configurations(const std::vector<Configuration>& configurations,
                                                    const ClusterOptions& options);

/// Feature `name` (a ClusterFeature::name) of `configuration` in natural units (GPUs, TFLOP/s, s,
/// samples/s, -, cores), and whether it is clustered as a logarithm (so plotted on a log axis).
/// Throws std::invalid_argument for an unknown name.
double cluster_feature_value(const std::string& name, const Configuration& configuration);
bool cluster_feature_is_logarithmic(const std::string& name);

} // namespace gpuscale::analysis
