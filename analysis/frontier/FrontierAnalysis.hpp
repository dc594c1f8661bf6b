#pragma once
/// The efficiency analysis of a results file, as data: scaling series and their fits, balance points,
/// the cheapest configuration that meets a deadline, Pareto frontiers, clusters and a TOPSIS ranking.
/// MarkdownReport and GnuplotPlots present it; `gpuscale frontier` runs it.
///
/// Everything compares time_s() (TimeMetric.hpp). Pareto frontiers, deadlines and rankings compare
/// configurations of the same workload only (times of different models are not alternatives).

#include "sim/model/PredictionInterval.hpp"
#include "analysis/frontier/BalancePoint.hpp"
#include "analysis/frontier/ClusterAnalysis.hpp"
#include "analysis/frontier/Configuration.hpp"
#include "analysis/frontier/EnergyModel.hpp"
#include "analysis/frontier/ScalingSeries.hpp"
#include "analysis/frontier/Topsis.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

struct FrontierOptions {
  double marginal_gain_threshold = kDefaultMarginalGainThreshold;
  /// Deadline on time_s. nullopt: deadline_factor x the fastest configuration of each workload.
  std::optional<double> deadline_s;
  double deadline_factor = 2.0;
  EnergyModel energy;
  /// TOPSIS weights of time, GPU-hours, cost and scaling efficiency.
  std::vector<double> topsis_weights{0.4, 0.2, 0.2, 0.2};
  ClusterOptions clustering;
  /// Leave out configurations whose convergence was extrapolated (their time to train rests on the
  /// critical-batch-size fit, not on reference runs).
  bool exclude_extrapolated = false;
  /// The calibration's interval model, to tell configurations' times apart (TimeTie.hpp); nullptr:
  /// the rows' own intervals alone.
  const model::IntervalModel* intervals = nullptr;
};

/// The configuration with the fewest GPU-hours among those of a workload that meet the deadline.
struct DeadlineChoice {
  std::string workload;
  double deadline_s = 0;
  std::size_t meeting = 0;                 ///< configurations with time_s <= deadline_s
  std::optional<std::size_t> configuration;
};

/// Pareto frontier of (time_s, metric) over one workload's configurations.
struct Frontier {
  std::string workload;
  std::string metric;                      ///< "GPU-hours", "cost (USD)", "energy (kWh)"
  std::size_t considered = 0;              ///< configurations with a value of the metric
  std::vector<std::size_t> front;          ///< configuration indices, increasing time
};

struct Ranking {
  std::string workload;
  std::vector<Criterion> criteria;         ///< as applied (cost dropped if a configuration has no price)
  std::string note;
  std::vector<std::pair<std::size_t, double>> ranked; ///< (configuration, closeness), best first
  /// Parallel to `ranked`: its time cannot be told from the fastest ranked configuration's at 80 %
  /// (time_tie); the fastest itself true.
  std::vector<bool> ties_fastest;
  std::size_t fastest = 0; ///< the configuration with the least time_s among the ranked
};

struct FrontierAnalysis {
  FrontierOptions options;
  std::size_t rows = 0;
  std::size_t infeasible_rows = 0;
  std::size_t rows_without_time = 0;       ///< feasible rows whose time_s() is 0 (no convergence table)
  std::size_t extrapolated_rows = 0;       ///< configurations whose convergence was extrapolated
  std::size_t excluded_extrapolated_rows = 0; ///< of those, left out (options.exclude_extrapolated)
  std::vector<Configuration> configurations;
  std::vector<std::string> workloads;      ///< sorted
  std::vector<ScalingSeries> series;
  std::vector<BalancePoint> balance;       ///< per series
  std::vector<DeadlineChoice> deadlines;   ///< per workload
  std::vector<Frontier> frontiers;         ///< per workload, three metrics each
  std::vector<Ranking> rankings;           ///< per workload
  std::optional<ClusterResult> clusters;
};

/// Throws std::invalid_argument for options out of range (threshold, deadline, weights).
FrontierAnalysis analyse_frontier(const std::vector<results::RunRecord>& runs, const FrontierOptions& options);

/// Reads a metric of a configuration by the names used in Frontier::metric.
double metric_value(const Configuration& configuration, const std::string& metric);

} // namespace gpuscale::analysis
