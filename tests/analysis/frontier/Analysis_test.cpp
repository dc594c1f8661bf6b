// Scaling series, balance points, the energy model and the whole analysis on rows built from closed forms.

#include "analysis/frontier/BalancePoint.hpp"
#include "analysis/frontier/FrontierAnalysis.hpp"
#include "analysis/frontier/MarkdownReport.hpp"
#include "analysis/frontier/TimeMetric.hpp"
#include "analysis/frontier/TimeTie.hpp"
#include "tests/analysis/frontier/SyntheticRuns.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>

using namespace gpuscale;
using namespace gpuscale::analysis;

namespace {

/// A series whose throughput X = 1/T at 1, 2, 4, 8, 16 GPUs is given.
ScalingSeries series_with_throughput(const std::vector<double>& throughput)
{
  std::vector<results::RunRecord> runs;
  int gpus = 1;
  for (double x : throughput) {
    auto r = testing::usl_run("w", "p", gpus, 1, 0, 0, 1, 400, 1e12, 8);
    r.time_to_train_min = 1 / x / 60;
    runs.push_back(r);
    gpus *= 2;
  }
  auto configurations = feasible_configurations(runs, EnergyModel{});
  auto series = scaling_series(configurations);
  REQUIRE(series.size() == 1);
  return series.front();
}

} // namespace

TEST_CASE("analysis::scaling_series computes speedup, efficiency and marginal gain per added GPU", "[analysis]")
{
  // X = 1, 1.9, 3.4, 5.2, 6.0: per added GPU 0.9, 0.75, 0.45, 0.1 of the base GPU's 1.
  const auto series = series_with_throughput({1, 1.9, 3.4, 5.2, 6.0});
  REQUIRE(series.points.size() == 5);
  CHECK(std::isnan(series.points[0].marginal_gain));
  CHECK(series.points[1].marginal_gain == Approx(0.9));
  CHECK(series.points[2].marginal_gain == Approx(0.75));
  CHECK(series.points[3].marginal_gain == Approx(0.45));
  CHECK(series.points[4].marginal_gain == Approx(0.1));
  CHECK(series.points[2].speedup == Approx(3.4));
  CHECK(series.points[2].efficiency == Approx(3.4 / 4));
}

TEST_CASE("analysis::scaling_series keeps analytical-executor rows apart from SimGrid ones and labels them",
          "[analysis]")
{
  std::vector<results::RunRecord> runs;
  for (const char* executor : {"simgrid", "analytical"})
    for (int gpus : {1, 2, 4}) {
      auto r = testing::usl_run("w", "p", gpus, 1, 0, 0, 1, 400, 1e12, 8);
      r.executor = executor;
      runs.push_back(r);
    }
  auto configurations = feasible_configurations(runs, EnergyModel{});
  const auto series = scaling_series(configurations);
  REQUIRE(series.size() == 2);
  CHECK(series[0].points.size() == 3);
  CHECK(series[1].points.size() == 3);
  CHECK_THAT(series[0].label + " / " + series[1].label, Catch::Contains("executor analytical") &&
                                                          Catch::Contains("executor simgrid"));
}

TEST_CASE("analysis::balance_point is the largest configuration before the marginal gain falls below the threshold",
          "[analysis]")
{
  const auto series = series_with_throughput({1, 1.9, 3.4, 5.2, 6.0});
  const auto half = balance_point(series, 0.5); // 0.45 < 0.5 on the step 4 -> 8
  CHECK(half.gpus == 4);
  CHECK(half.limited);
  CHECK(half.next_marginal_gain == Approx(0.45));
  CHECK(balance_point(series, 0.8).gpus == 2);
  const auto none = balance_point(series, 0.05); // every step adds more than 0.05
  CHECK(none.gpus == 16);
  CHECK_FALSE(none.limited);
  CHECK(std::isnan(none.next_marginal_gain));
}

TEST_CASE("analysis::EnergyModel is idle power plus the dynamic share times compute utilisation", "[analysis]")
{
  results::RunRecord r;
  r.gpus = 4;
  r.tdp_w = 400;
  r.iter_time_s = 2;
  r.compute_time_s = 1.5; // u = 0.75
  r.time_to_train_min = 10;
  const EnergyModel model{0.25};
  CHECK(model.power_per_gpu_w(r) == Approx(100 + 300 * 0.75));
  CHECK(model.energy_j(r) == Approx(4 * 325 * 600.0));
}

TEST_CASE("analysis::time_s is the time to train, and rows without one are left out", "[analysis]")
{
  auto runs = testing::synthetic_runs();
  CHECK(time_s(runs.front()) == Approx(runs.front().time_to_train_min * 60));
  runs.front().time_to_train_min = 0;
  const auto analysis = analyse_frontier(runs, FrontierOptions{});
  CHECK(analysis.rows_without_time == 1);
  CHECK(analysis.infeasible_rows == 1);
  CHECK(analysis.configurations.size() == runs.size() - 2);
}

TEST_CASE("analysis::analyse_frontier on USL rows: fits, deadline choice, frontiers, ranking and clusters",
          "[analysis]")
{
  const auto runs = testing::synthetic_runs();
  FrontierOptions options;
  const auto a = analyse_frontier(runs, options);
  REQUIRE(a.series.size() == 4);
  CHECK(a.workloads == std::vector<std::string>{"alpha", "beta"});
  for (const auto& s : a.series) {
    REQUIRE(s.usl);
    REQUIRE(s.points.size() == 7);
  }
  // alpha @ new-cluster follows sigma = 0.03, kappa = 5e-4 exactly.
  const auto& alpha_new = a.series[0];
  CHECK(alpha_new.label == "alpha @ new-cluster");
  CHECK(alpha_new.usl->contention.value == Approx(0.03).epsilon(1e-6));
  CHECK(alpha_new.usl->coherency.value == Approx(5e-4).epsilon(1e-6));
  // beta @ new-cluster has no price: cost is n/a, and its ranking leaves cost out.
  const auto& beta = a.rankings[1];
  CHECK(beta.workload == "beta");
  CHECK(beta.criteria.size() == 3);
  CHECK_FALSE(beta.note.empty());
  // Deadline: 2 x the fastest; the choice meets it with the fewest GPU-hours.
  for (const auto& d : a.deadlines) {
    REQUIRE(d.configuration);
    const auto& chosen = a.configurations[*d.configuration];
    CHECK(chosen.time_s <= d.deadline_s);
    for (const auto& c : a.configurations)
      if (c.run.workload == d.workload && c.time_s <= d.deadline_s)
        CHECK(chosen.gpu_hours <= c.gpu_hours);
  }
  // Every frontier point is undominated.
  for (const auto& f : a.frontiers)
    for (std::size_t i : f.front)
      for (const auto& c : a.configurations)
        if (c.run.workload == f.workload)
          CHECK_FALSE((c.time_s < a.configurations[i].time_s &&
                       metric_value(c, f.metric) < metric_value(a.configurations[i], f.metric)));
  REQUIRE(a.clusters);
  CHECK(a.clusters->chosen_by_silhouette);
  CHECK(a.clusters->assignment.size() == a.configurations.size());
  FrontierOptions bad;
  bad.topsis_weights = {1, 2};
  CHECK_THROWS_AS(analyse_frontier(runs, bad), std::invalid_argument);
}

TEST_CASE("analysis::cluster_configurations uses 5 clusters when there are too few configurations for silhouettes",
          "[analysis]")
{
  std::vector<results::RunRecord> runs;
  for (int gpus = 1; gpus <= 128; gpus *= 2)
    runs.push_back(testing::usl_run("w", "p", gpus, 1000, 0.05, 0.001, 1, 400, 1e12, 8));
  auto configurations = feasible_configurations(runs, EnergyModel{});
  scaling_series(configurations);
  const auto clusters = cluster_configurations(configurations, ClusterOptions{});
  REQUIRE(clusters);
  CHECK_FALSE(clusters->chosen_by_silhouette);
  CHECK(clusters->k == kDefaultClusters);
  // Peak FLOP/s and host cores are the same everywhere: left out, not divided by a zero spread.
  CHECK(clusters->dropped_features.size() == 2);
}

TEST_CASE("analysis::analyse_frontier marks configurations with an extrapolated convergence and can leave them out",
          "[analysis]")
{
  auto runs = testing::synthetic_runs();
  std::size_t marked = runs.size();
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (runs[i].workload == "alpha" && runs[i].platform == "new-cluster" && runs[i].gpus == 64)
      marked = i;
  REQUIRE(marked < runs.size());
  auto& r = runs[marked];
  r.convergence_extrapolated = 1;
  r.time_to_train_low_min = 0.8 * r.time_to_train_min;
  r.time_to_train_high_min = 1.3 * r.time_to_train_min;
  const std::string label = "new-cluster x64";
  const std::string interval = "(extrapolated, 80 %: " + format_time(0.8 * r.time_to_train_min * 60) + " to " +
                               format_time(1.3 * r.time_to_train_min * 60) + ")";

  const auto a = analyse_frontier(runs, FrontierOptions{});
  CHECK(a.extrapolated_rows == 1);
  CHECK(a.excluded_extrapolated_rows == 0);
  std::size_t flagged = 0;
  for (const auto& c : a.configurations) {
    if (!c.convergence_extrapolated) {
      CHECK(c.time_low_s == c.time_s); // rows without an interval: the point itself
      CHECK(c.time_high_s == c.time_s);
      continue;
    }
    ++flagged;
    CHECK(c.label() == label);
    CHECK(c.time_low_s == Approx(0.8 * c.time_s).epsilon(1e-12));
    CHECK(c.time_high_s == Approx(1.3 * c.time_s).epsilon(1e-12));
  }
  CHECK(flagged == 1);
  std::ostringstream report;
  write_markdown_report(a, ReportContext{"synthetic.h5", {}, ""}, report);
  const std::string text = report.str();
  CHECK(text.find("| " + label + " | " + format_time(r.time_to_train_min * 60) + " " + interval + " |") !=
        std::string::npos);
  CHECK(text.find("1 of 14 ranked configurations have an extrapolated time to train") != std::string::npos);
  CHECK(text.find("marked \"extrapolated\" in the tables") != std::string::npos);
  CHECK(format_ranking_text(a, 20).find("EXTRAPOLATED convergence, time " +
                                        format_time(0.8 * r.time_to_train_min * 60)) != std::string::npos);

  FrontierOptions exclude;
  exclude.exclude_extrapolated = true;
  const auto b = analyse_frontier(runs, exclude);
  CHECK(b.extrapolated_rows == 1);
  CHECK(b.excluded_extrapolated_rows == 1);
  CHECK(b.configurations.size() == a.configurations.size() - 1);
  for (const auto& ranking : b.rankings)
    for (const auto& [configuration, closeness] : ranking.ranked)
      CHECK_FALSE(b.configurations[configuration].convergence_extrapolated);
  std::ostringstream excluded_report;
  write_markdown_report(b, ReportContext{"synthetic.h5", {}, ""}, excluded_report);
  CHECK(excluded_report.str().find("they are left out of this analysis") != std::string::npos);
  CHECK(excluded_report.str().find("extrapolated, 95 %") == std::string::npos);
}

TEST_CASE("analysis::time_tie tells configurations apart only outside the ratio's interval", "[analysis]")
{
  using analysis::Configuration;
  const auto configuration = [](double time_s, double low_s, double high_s, const std::string& regime) {
    Configuration c;
    c.time_s = time_s;
    c.time_low_s = low_s;
    c.time_high_s = high_s;
    c.run.workload = "bert-large";
    c.run.gpu_models = "h100-sxm5-80gb";
    c.run.interval_regime = regime;
    return c;
  };
  // Without the calibration's pair bounds: the two intervals side by side.
  const auto a = configuration(100, 90, 120, "");
  const auto b = configuration(110, 100, 130, "");
  const auto far = configuration(200, 180, 240, "");
  CHECK(analysis::time_tie(a, b, nullptr));
  CHECK_FALSE(analysis::time_tie(a, far, nullptr));
  CHECK(analysis::time_tie(a, a, nullptr));
  // With them: one family's pair bounds of +-5 % tell 100 from 110 apart though the intervals overlap.
  model::IntervalModel intervals;
  intervals.modes["calibrated_family"] = {-0.2, 0.2, 100, 0.8};
  intervals.modes["calibrated_family"].same_family = {-0.05, 0.05, 400, 0.0};
  const auto pa = configuration(100, 90, 120, "calibrated_family");
  const auto pb = configuration(110, 100, 130, "calibrated_family");
  const auto [low, high] = analysis::time_ratio_bounds(pa, pb, &intervals);
  CHECK(low == Approx(100.0 / 110 * std::exp(-0.05)));
  CHECK(high == Approx(100.0 / 110 * std::exp(0.05)));
  CHECK_FALSE(analysis::time_tie(pa, pb, &intervals));
  // Another family: no pairs of that class, so the intervals side by side again.
  auto other = pb;
  other.run.gpu_models = "b200-sxm-180gb";
  CHECK(analysis::time_tie(pa, other, &intervals));
}
