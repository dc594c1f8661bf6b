#pragma once
/// Strong-scaling series: runs that differ only in GPU count (same workload, platform, batch sizes,
/// ZeRO stage, collective, precision), ordered by GPU count, with
///   speedup     S(N) = T(N0) / T(N)
///   efficiency  E(N) = T(N0) N0 / (T(N) N)            (N0: the series' fewest GPUs)
///   marginal gain of the step N_{i-1} -> N_i, per added GPU, relative to one GPU's share at N0:
///               m_i = [X(N_i) - X(N_{i-1})] / (N_i - N_{i-1}) / (X(N0) / N0),   X = 1 / T
/// (m = 1: each added GPU adds as much as a GPU did at N0; m = 0: no gain; m < 0: slower).

#include "analysis/frontier/Configuration.hpp"
#include "analysis/frontier/ScalingFit.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

struct ScalingPoint {
  std::size_t configuration = 0; ///< index into the configurations
  int gpus = 0;
  double time_s = 0;
  double speedup = 1;
  double efficiency = 1;
  double marginal_gain = 0; ///< of the step that reached this point; NaN at N0
};

struct ScalingSeries {
  std::string key;
  std::string label;    ///< "resnet50 @ dgx-a100-128node-fattree" (+ what tells it apart from other series)
  std::string workload;
  std::string platform;
  std::vector<ScalingPoint> points; ///< increasing GPU count
  std::optional<PowerLawFit> power_law;
  std::optional<UslFit> usl;
  std::optional<UslFit> amdahl;
};

/// Groups `configurations` into series (a repeated GPU count keeps its first row), fills their
/// speedup and efficiency, and fits the scaling laws. Series are sorted by label.
std::vector<ScalingSeries> scaling_series(std::vector<Configuration>& configurations);

} // namespace gpuscale::analysis
