#include "analysis/frontier/FrontierAnalysis.hpp"

#include "analysis/frontier/Pareto.hpp"
#include "analysis/frontier/TimeMetric.hpp"
#include "analysis/frontier/TimeTie.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace gpuscale::analysis {
namespace {

const std::vector<std::string>& frontier_metrics()
{
  static const std::vector<std::string> metrics{"GPU-hours", "cost (USD)", "energy (kWh)"};
  return metrics;
}

void check_options(const FrontierOptions& options)
{
  if (!(options.marginal_gain_threshold >= 0 && options.marginal_gain_threshold <= 1))
    throw std::invalid_argument("the marginal-gain threshold must be in [0, 1]");
  if (options.deadline_s && !(*options.deadline_s > 0))
    throw std::invalid_argument("the deadline must be positive");
  if (!(options.deadline_factor >= 1))
    throw std::invalid_argument("the deadline factor must be at least 1");
  if (!(options.energy.idle_fraction >= 0 && options.energy.idle_fraction <= 1))
    throw std::invalid_argument("the idle power fraction must be in [0, 1]");
  if (options.topsis_weights.size() != 4)
    throw std::invalid_argument("TOPSIS needs 4 weights (time, GPU-hours, cost, efficiency)");
  double total = 0;
  for (double w : options.topsis_weights) {
    if (!(w >= 0))
      throw std::invalid_argument("TOPSIS weights must not be negative");
    total += w;
  }
  if (!(total > 0))
    throw std::invalid_argument("TOPSIS weights must not all be zero");
}

std::vector<std::size_t> of_workload(const std::vector<Configuration>& configurations, const std::string& workload)
{
  std::vector<std::size_t> indices;
  for (std::size_t i = 0; i < configurations.size(); ++i)
    if (configurations[i].run.workload == workload)
      indices.push_back(i);
  return indices;
}

DeadlineChoice choose_at_deadline(const std::vector<Configuration>& configurations, const std::vector<std::size_t>& indices,
                                  const std::string& workload, const FrontierOptions& options)
{
  DeadlineChoice choice;
  choice.workload = workload;
  double fastest = INFINITY;
  for (std::size_t i : indices)
    fastest = std::min(fastest, configurations[i].time_s);
  choice.deadline_s = options.deadline_s.value_or(options.deadline_factor * fastest);
  for (std::size_t i : indices) {
    const auto& c = configurations[i];
    if (c.time_s > choice.deadline_s)
      continue;
    ++choice.meeting;
    if (!choice.configuration)
      choice.configuration = i;
    const auto& best = configurations[*choice.configuration];
    if (c.gpu_hours < best.gpu_hours || (c.gpu_hours == best.gpu_hours && c.time_s < best.time_s))
      choice.configuration = i;
  }
  return choice;
}

Ranking rank(const std::vector<Configuration>& configurations, const std::vector<std::size_t>& indices,
             const std::string& workload, const FrontierOptions& options)
{
  Ranking ranking;
  ranking.workload = workload;
  const auto& w = options.topsis_weights;
  ranking.criteria = {{"time", w[0], false}, {"GPU-hours", w[1], false}, {"cost", w[2], false}, {"efficiency", w[3], true}};
  bool priced = true;
  for (std::size_t i : indices)
    priced = priced && !std::isnan(configurations[i].cost_usd);
  if (!priced) {
    ranking.criteria.erase(ranking.criteria.begin() + 2);
    ranking.note = "cost left out: some GPUs of this workload have no catalog price";
  }
  double remaining = 0;
  for (const auto& criterion : ranking.criteria)
    remaining += criterion.weight;
  if (!(remaining > 0)) {
    ranking.note = "no ranking: every remaining criterion has weight 0";
    return ranking;
  }
  std::vector<std::vector<double>> matrix;
  for (std::size_t i : indices) {
    const auto& c = configurations[i];
    std::vector<double> row{c.time_s, c.gpu_hours};
    if (priced)
      row.push_back(c.cost_usd);
    row.push_back(c.efficiency);
    matrix.push_back(std::move(row));
  }
  const auto closeness = topsis_closeness(matrix, ranking.criteria);
  for (std::size_t k = 0; k < indices.size(); ++k)
    ranking.ranked.emplace_back(indices[k], closeness[k]);
  std::stable_sort(ranking.ranked.begin(), ranking.ranked.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (ranking.ranked.empty())
    return ranking;
  std::size_t fastest = ranking.ranked.front().first;
  for (const auto& [i, closeness] : ranking.ranked)
    if (configurations[i].time_s < configurations[fastest].time_s)
      fastest = i;
  for (const auto& [i, closeness] : ranking.ranked)
    ranking.ties_fastest.push_back(i == fastest ||
                                   time_tie(configurations[i], configurations[fastest], options.intervals));
  return ranking;
}

} // namespace

double metric_value(const Configuration& configuration, const std::string& metric)
{
  if (metric == "GPU-hours")
    return configuration.gpu_hours;
  if (metric == "cost (USD)")
    return configuration.cost_usd;
  if (metric == "energy (kWh)")
    return configuration.energy_kwh;
  throw std::invalid_argument("unknown metric '" + metric + "'");
}

FrontierAnalysis analyse_frontier(const std::vector<results::RunRecord>& runs, const FrontierOptions& options)
{
  check_options(options);
  FrontierAnalysis analysis;
  analysis.options = options;
  analysis.rows = runs.size();
  for (const auto& run : runs) {
    analysis.infeasible_rows += run.outcome == results::Outcome::Infeasible ? 1 : 0;
    analysis.rows_without_time += run.outcome == results::Outcome::Ok && !(time_s(run) > 0) ? 1 : 0;
  }
  analysis.configurations = feasible_configurations(runs, options.energy);
  for (const auto& c : analysis.configurations)
    analysis.extrapolated_rows += c.convergence_extrapolated ? 1 : 0;
  if (options.exclude_extrapolated) {
    std::erase_if(analysis.configurations, [](const Configuration& c) { return c.convergence_extrapolated; });
    analysis.excluded_extrapolated_rows = analysis.extrapolated_rows;
  }
  analysis.series = scaling_series(analysis.configurations);
  for (const auto& series : analysis.series)
    analysis.balance.push_back(balance_point(series, options.marginal_gain_threshold));
  std::set<std::string> workloads;
  for (const auto& c : analysis.configurations)
    workloads.insert(c.run.workload);
  analysis.workloads.assign(workloads.begin(), workloads.end());

  for (const auto& workload : analysis.workloads) {
    const auto indices = of_workload(analysis.configurations, workload);
    analysis.deadlines.push_back(choose_at_deadline(analysis.configurations, indices, workload, options));
    for (const auto& metric : frontier_metrics()) {
      Frontier frontier;
      frontier.workload = workload;
      frontier.metric = metric;
      std::vector<double> x, y;
      for (std::size_t i : indices) {
        x.push_back(analysis.configurations[i].time_s);
        y.push_back(metric_value(analysis.configurations[i], metric));
        frontier.considered += std::isnan(y.back()) ? 0 : 1;
      }
      for (std::size_t k : pareto_front(x, y))
        frontier.front.push_back(indices[k]);
      analysis.frontiers.push_back(std::move(frontier));
    }
    analysis.rankings.push_back(rank(analysis.configurations, indices, workload, options));
  }
  analysis.clusters = cluster_configurations(analysis.configurations, options.clustering);
  return analysis;
}

} // namespace gpuscale::analysis
