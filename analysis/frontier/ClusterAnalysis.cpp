#include "analysis/frontier/ClusterAnalysis.hpp"

#include <stdexcept>

#include <algorithm>
#include <cmath>
#include <map>

namespace gpuscale::analysis {
namespace {

struct FeatureDefinition {
  const char* name;
  const char* unit;
  const char* high; ///< words for a cluster well above the mean
  const char* low;
  double (*raw)(const Configuration&);     ///< the value clustered (possibly a logarithm)
  double (*natural)(const Configuration&); ///< the value described
  bool logarithmic;                        ///< raw is a logarithm of natural (plotted on a log axis)
};

const std::vector<FeatureDefinition>& definitions()
{
  static const std::vector<FeatureDefinition> table{
      {"GPU count", "GPUs", "many GPUs", "few GPUs", [](const Configuration& c) { return std::log2(double(c.run.gpus)); },
       [](const Configuration& c) { return double(c.run.gpus); }, true},
      {"GPU generation", "peak TFLOP/s", "newer/faster GPUs", "older/slower GPUs",
       [](const Configuration& c) { return std::log10(std::max(c.run.peak_flop_per_gpu_s, 1.0)); },
       [](const Configuration& c) { return c.run.peak_flop_per_gpu_s / 1e12; }, true},
      {"time", "s", "slow", "fast", [](const Configuration& c) { return std::log10(c.time_s); },
       [](const Configuration& c) { return c.time_s; }, true},
      {"throughput per GPU", "samples/s", "high throughput per GPU", "low throughput per GPU",
       [](const Configuration& c) { return std::log10(std::max(c.throughput_per_gpu, 1e-12)); },
       [](const Configuration& c) { return c.throughput_per_gpu; }, true},
      {"scaling efficiency", "", "high efficiency", "low efficiency", [](const Configuration& c) { return c.efficiency; },
       [](const Configuration& c) { return c.efficiency; }, false},
      {"host cores per GPU", "cores", "many host cores per GPU", "few host cores per GPU",
       [](const Configuration& c) { return c.run.host_cores_per_gpu; },
       [](const Configuration& c) { return c.run.host_cores_per_gpu; }, false},
  };
  return table;
}

/// "mostly resnet50 (8 of 10)" or "resnet50, bert-large" for the commonest values of a field.
std::string commonest(const std::map<std::string, std::size_t>& counts, std::size_t size)
{
  std::vector<std::pair<std::size_t, std::string>> sorted;
  for (const auto& [value, count] : counts)
    sorted.emplace_back(count, value);
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (sorted.size() == 1)
    return "all " + sorted.front().second;
  std::string text;
  for (std::size_t i = 0; i < sorted.size() && i < 3; ++i)
    text += (text.empty() ? "" : ", ") + sorted[i].second + " (" + std::to_string(sorted[i].first) + "/" +
            std::to_string(size) + ")";
  return text + (sorted.size() > 3 ? ", ..." : "");
}

/// The features that vary across the configurations, standardised to mean 0 and variance 1.
struct StandardisedFeatures {
  std::vector<std::size_t> used; ///< indices into definitions() of the features kept
  std::vector<Point> points;     ///< one point per configuration, one coordinate per used feature
};

/// Standardises every feature that varies; features that are (numerically) constant are recorded in
/// `result.dropped_features`, the others in `result.features`.
StandardisedFeatures standardise_features(const std::vector<Configuration>& configurations, ClusterResult& result)
{
  const std::size_t n = configurations.size();
  StandardisedFeatures standardised;
  std::vector<double> means, deviations;
  for (std::size_t f = 0; f < definitions().size(); ++f) {
    double mean = 0;
    for (const auto& c : configurations)
      mean += definitions()[f].raw(c) / static_cast<double>(n);
    double variance = 0;
    for (const auto& c : configurations)
      variance += std::pow(definitions()[f].raw(c) - mean, 2) / static_cast<double>(n);
    if (variance <= 1e-12 * std::max(1.0, mean * mean)) {
      result.dropped_features.push_back(definitions()[f].name);
      continue;
    }
    standardised.used.push_back(f);
    means.push_back(mean);
    deviations.push_back(std::sqrt(variance));
    result.features.push_back({definitions()[f].name, definitions()[f].unit, 0});
  }
  const auto& used = standardised.used;
  standardised.points.assign(n, Point(used.size()));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t u = 0; u < used.size(); ++u)
      standardised.points[i][u] = (definitions()[used[u]].raw(configurations[i]) - means[u]) / deviations[u];
  return standardised;
}

/// Runs k-means with the requested k, or with the k of best silhouette when there are enough points, or
/// with the default k; sets `result.k`, the silhouette(s) and whether the silhouette chose k.
KMeansResult choose_clusters(const std::vector<Point>& points, const ClusterOptions& options, ClusterResult& result)
{
  const std::size_t n = points.size();
  KMeansResult best;
  if (options.k) {
    result.k = std::clamp(*options.k, 1, static_cast<int>(n));
    best = kmeans(points, result.k, options.seed);
    result.silhouette = result.k > 1 ? silhouette_score(points, best.assignment, result.k) : 0.0;
  } else if (n >= kMinPointsForSilhouette) {
    result.chosen_by_silhouette = true;
    for (int k = 2; k <= std::min<int>(options.max_k, static_cast<int>(n) - 1); ++k) {
      KMeansResult candidate = kmeans(points, k, options.seed);
      const double score = silhouette_score(points, candidate.assignment, k);
      result.silhouettes.emplace_back(k, score);
      if (result.k == 0 || score > result.silhouette + 1e-12) {
        result.k = k;
        result.silhouette = score;
        best = std::move(candidate);
      }
    }
  } else {
    result.k = std::min(kDefaultClusters, static_cast<int>(n));
    best = kmeans(points, result.k, options.seed);
    result.silhouette = result.k > 1 && result.k < static_cast<int>(n) ? silhouette_score(points, best.assignment, result.k) : 0.0;
  }
  return best;
}

/// Numbers clusters by decreasing size (then by first member) so the report does not depend on seeding order.
void number_clusters_by_size(std::vector<int>& assignment, int k)
{
  const std::size_t n = assignment.size();
  std::vector<std::size_t> sizes(static_cast<std::size_t>(k), 0);
  std::vector<std::size_t> first(static_cast<std::size_t>(k), n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<std::size_t>(assignment[i]);
    ++sizes[c];
    first[c] = std::min(first[c], i);
  }
  std::vector<int> order(static_cast<std::size_t>(k));
  for (int c = 0; c < k; ++c)
    order[static_cast<std::size_t>(c)] = c;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    return sizes[ua] != sizes[ub] ? sizes[ua] > sizes[ub] : first[ua] < first[ub];
  });
  std::vector<int> renumber(static_cast<std::size_t>(k));
  for (int rank = 0; rank < k; ++rank)
    renumber[static_cast<std::size_t>(order[static_cast<std::size_t>(rank)])] = rank;
  for (auto& c : assignment)
    c = renumber[static_cast<std::size_t>(c)];
}

/// η² per feature on the standardised values (total sum of squares is n, the variance being 1).
void set_feature_importances(const std::vector<Point>& points, ClusterResult& result)
{
  const std::size_t n = points.size();
  for (std::size_t u = 0; u < result.features.size(); ++u) {
    std::vector<double> sum(static_cast<std::size_t>(result.k), 0.0);
    std::vector<double> count(static_cast<std::size_t>(result.k), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      sum[static_cast<std::size_t>(result.assignment[i])] += points[i][u];
      count[static_cast<std::size_t>(result.assignment[i])] += 1;
    }
    double between = 0;
    for (std::size_t c = 0; c < sum.size(); ++c)
      if (count[c] > 0)
        between += sum[c] * sum[c] / count[c];
    result.features[u].importance = between / static_cast<double>(n);
  }
}

/// Cluster `id`'s size, mean per feature, centroid in standard units and a one-line summary.
ClusterDescription describe_cluster(int id, const std::vector<Configuration>& configurations,
                                    const StandardisedFeatures& standardised, const std::vector<int>& assignment)
{
  const auto& used = standardised.used;
  const auto& points = standardised.points;
  ClusterDescription d;
  d.id = id;
  d.mean.assign(used.size(), 0.0);
  d.centroid_z.assign(used.size(), 0.0);
  std::map<std::string, std::size_t> workloads, platforms;
  for (std::size_t i = 0; i < configurations.size(); ++i)
    if (assignment[i] == id) {
      ++d.size;
      ++workloads[configurations[i].run.workload];
      ++platforms[configurations[i].run.platform];
      for (std::size_t u = 0; u < used.size(); ++u) {
        d.mean[u] += definitions()[used[u]].natural(configurations[i]);
        d.centroid_z[u] += points[i][u];
      }
    }
  for (std::size_t u = 0; u < used.size(); ++u) {
    d.mean[u] /= static_cast<double>(d.size);
    d.centroid_z[u] /= static_cast<double>(d.size);
  }
  // The two features furthest from the mean (|z| >= 0.5) name the cluster.
  std::vector<std::size_t> by_distance(used.size());
  for (std::size_t u = 0; u < used.size(); ++u)
    by_distance[u] = u;
  std::stable_sort(by_distance.begin(), by_distance.end(),
                   [&](std::size_t a, std::size_t b) { return std::fabs(d.centroid_z[a]) > std::fabs(d.centroid_z[b]); });
  std::string traits;
  for (std::size_t r = 0; r < by_distance.size() && r < 2; ++r) {
    const std::size_t u = by_distance[r];
    if (std::fabs(d.centroid_z[u]) < 0.5)
      break;
    traits += (traits.empty() ? "" : ", ") +
              std::string(d.centroid_z[u] > 0 ? definitions()[used[u]].high : definitions()[used[u]].low);
  }
  d.summary = (traits.empty() ? std::string("close to the average") : traits) + "; " + commonest(workloads, d.size) +
              "; " + commonest(platforms, d.size);
  return d;
}

} // namespace

double cluster_feature_value(const std::string& name, const Configuration& configuration)
{
  for (const auto& d : definitions())
    if (name == d.name)
      return d.natural(configuration);
  throw std::invalid_argument("unknown cluster feature '" + name + "'");
}

bool cluster_feature_is_logarithmic(const std::string& name)
{
  for (const auto& d : definitions())
    if (name == d.name)
      return d.logarithmic;
  throw std::invalid_argument("unknown cluster feature '" + name + "'");
}

std::optional<ClusterResult> cluster_configurations(const std::vector<Configuration>& configurations,
                                                    const ClusterOptions& options)
{
  if (configurations.size() < 2)
    return std::nullopt;
  ClusterResult result;
  const StandardisedFeatures standardised = standardise_features(configurations, result);
  if (standardised.used.empty())
    return std::nullopt;
  result.assignment = choose_clusters(standardised.points, options, result).assignment;
  number_clusters_by_size(result.assignment, result.k);
  set_feature_importances(standardised.points, result);
  for (int id = 0; id < result.k; ++id)
    result.clusters.push_back(describe_cluster(id, configurations, standardised, result.assignment));
  return result;
}

} // namespace gpuscale::analysis
