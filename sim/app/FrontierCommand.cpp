// gpuscale frontier results.h5 -o report/: the efficiency analysis of a results file as a Markdown
// report with plots, and the TOPSIS ranking on stdout.

#include "analysis/frontier/FrontierAnalysis.hpp"
#include "analysis/frontier/GnuplotPlots.hpp"
#include "analysis/frontier/MarkdownReport.hpp"
#include "analysis/frontier/TimeMetric.hpp"
#include "sim/app/Commands.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/app/OutputPath.hpp"
#include "sim/mlperf/MlperfFrontierRows.hpp"
#include "sim/results/MlperfTables.hpp"
#include "sim/results/ResultsFile.hpp"
#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace gpuscale::app {
namespace {

namespace fs = std::filesystem;

struct FrontierOptions {
  std::string results_path;
  std::string output_dir;
  std::string deadline;
  std::string weights = "0.4,0.2,0.2,0.2";
  int clusters = 0;
  std::size_t top = 10;
  bool no_plots = false;
  analysis::FrontierOptions analysis;
};

std::vector<double> parse_weights(const std::string& text)
{
  std::vector<double> weights;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      std::size_t used = 0;
      weights.push_back(std::stod(item, &used));
      if (used != item.size())
        throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw std::invalid_argument("--weights expects 4 numbers separated by commas (time, GPU-hours, cost, "
                                  "efficiency), got '" + text + "'");
    }
  }
  if (weights.size() != 4)
    throw std::invalid_argument("--weights expects 4 numbers (time, GPU-hours, cost, efficiency), got '" + text + "'");
  return weights;
}

void frontier(FrontierOptions options)
{
  if (!options.deadline.empty()) {
    try {
      options.analysis.deadline_s = units::parse_quantity(options.deadline, units::Dimension::Seconds);
    } catch (const units::UnitError& e) {
      throw std::invalid_argument(std::string("--deadline: ") + e.what());
    }
  }
  (void)checked_output_folder(options.output_dir, {options.results_path});
  options.analysis.topsis_weights = parse_weights(options.weights);
  if (options.clusters > 0)
    options.analysis.clustering.k = options.clusters;
  // A `gpuscale mlperf import` file has published scores instead of simulated runs.
  const auto runs = results::has_mlperf_scores(options.results_path)
                        ? mlperf::mlperf_frontier_rows(results::read_mlperf_scores(options.results_path))
                        : results::read_runs(options.results_path);
  // Ties are judged by the embedded calibration's left-out errors: the one `run` and `sweep` simulate with.
  options.analysis.intervals = &config::default_calibration().intervals;
  const auto result = analysis::analyse_frontier(runs, options.analysis);
  if (result.configurations.empty())
    throw std::invalid_argument(options.results_path + ": no feasible run with a " + analysis::time_metric_name() + " to analyse (" + std::to_string(result.rows) +
                                " rows, " + std::to_string(result.infeasible_rows) + " infeasible" +
                                (result.excluded_extrapolated_rows > 0
                                     ? ", " + std::to_string(result.excluded_extrapolated_rows) +
                                           " left out by --exclude-extrapolated"
                                     : std::string()) +
                                ")");
  fs::create_directories(options.output_dir);
  analysis::ReportContext context;
  context.source = fs::path(options.results_path).filename().string();
  const auto plots = analysis::write_plots(result, options.output_dir, !options.no_plots);
  context.plots = plots.plots;
  context.plot_problem = plots.problem;
  const fs::path report = fs::path(options.output_dir) / "report.md";
  {
    std::ofstream out(report);
    analysis::write_markdown_report(result, context, out);
    if (!out)
      throw std::runtime_error("cannot write " + report.string());
  }
  fmt::print("analysed   {} rows of {}: {} feasible configurations, {} workload(s), {} scaling series ({})\n",
             result.rows, options.results_path, result.configurations.size(), result.workloads.size(),
             result.series.size(), analysis::time_metric_name());
  if (result.extrapolated_rows > 0)
    fmt::print("convergence {} configuration(s) with an extrapolated time to train: {}\n", result.extrapolated_rows,
               result.excluded_extrapolated_rows > 0 ? "left out (--exclude-extrapolated)"
                                                     : "marked EXTRAPOLATED in the ranking and the report");
  for (std::size_t s = 0; s < result.series.size(); ++s)
    fmt::print("balance    {}: {} GPUs\n", result.series[s].label, result.balance[s].gpus);
  fmt::print("\n{}\n", analysis::format_ranking_text(result, options.top));
  fmt::print("report     {} ({} plot(s), PNG and SVG)\n", report.string(), plots.plots.size());
  if (!plots.problem.empty() && !options.no_plots)
    fmt::print(stderr, "warning: {}\n", plots.problem);
}

} // namespace

void add_frontier_command(CLI::App& app)
{
  auto options = std::make_shared<FrontierOptions>();
  CLI::App* command = app.add_subcommand(
      "frontier", "Efficiency analysis of a results file: scaling, balance points, Pareto frontiers, regression, "
                  "clusters, TOPSIS ranking; Markdown report with gnuplot plots");
  command->add_option("results", options->results_path, "HDF5 results file")->required()->check(CLI::ExistingFile);
  command->add_option("-o,--output", options->output_dir, "Report directory (created)")->required();
  command->add_option("--threshold", options->analysis.marginal_gain_threshold,
                      "Balance point: marginal gain per added GPU, relative to a GPU at the base, below which adding "
                      "GPUs stops")
      ->default_str("0.5");
  command->add_option("--deadline", options->deadline,
                      "Deadline on the time metric, with a unit (\"50 ms\", \"2 h\"); default: --deadline-factor x the "
                      "fastest configuration of each workload");
  command->add_option("--deadline-factor", options->analysis.deadline_factor, "See --deadline")->default_str("2");
  command->add_option("--idle-power-fraction", options->analysis.energy.idle_fraction,
                      "Energy model: idle power as a fraction of TDP")
      ->default_str("0.25");
  command->add_option("--weights", options->weights, "TOPSIS weights of time, GPU-hours, cost, efficiency")
      ->default_str("0.4,0.2,0.2,0.2");
  command->add_option("--clusters", options->clusters, "Number of clusters (default: chosen by silhouette)");
  command->add_option("--seed", options->analysis.clustering.seed, "k-means++ seed")->default_str("42");
  command->add_option("--top", options->top, "Rows of each workload's ranking printed")->default_str("10");
  command->add_flag("--exclude-extrapolated", options->analysis.exclude_extrapolated,
                    "Leave out configurations whose global batch lies outside the convergence table's reference "
                    "points (time to train extrapolated)");
  command->add_flag("--no-plots", options->no_plots, "Write the plot data and scripts but do not run gnuplot");
  command->callback([options] { frontier(*options); });
}

} // namespace gpuscale::app
