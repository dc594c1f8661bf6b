#include "sim/mlperf/CalibrationCases.hpp"
#include "sim/app/CalibrationReport.hpp"
#include "sim/app/ConvergenceBasisOption.hpp"
#include "sim/app/SoftwareDateOption.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/OutputPath.hpp"
#include "analysis/calibration/CalibrationFit.hpp"
#include "analysis/calibration/CrossValidation.hpp"
#include "analysis/calibration/PredictionIntervals.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/PrintableText.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>

namespace gpuscale::app {
namespace {

struct CalibrateOptions {
  std::string mlperf_dir;
  std::string output_path;
  std::string reference_path; ///< "": the embedded calibration
  int workers = 2;
  int max_accelerators = 0;
  mlperf::SoftwareDateSource software_date = mlperf::SoftwareDateSource::FirstRun; ///< software maturity (docs/CALIBRATION.md)
  /// Each result fitted at its own runs' samples, predictions at the measured convergence factors.
  analysis::ParameterSpace::ConvergenceBasis convergence = analysis::ParameterSpace::ConvergenceBasis::Runs;
  bool list_excluded = false;
};

/// How many results are uncontended, and by how much SimGrid exceeds the contention-free step in
/// the others.
void print_contention(const mlperf::CaseSet& set, const std::vector<double>& excess)
{
  std::vector<double> contended_pct;
  std::size_t worst = 0;
  for (std::size_t i = 0; i < excess.size(); ++i) {
    if (std::isfinite(excess[i]) && std::abs(excess[i]) > mlperf::kUncontendedExcess)
      contended_pct.push_back(100 * excess[i]);
    if (std::isfinite(excess[i]) && !(std::abs(excess[i]) <= std::abs(excess[worst])))
      worst = i;
  }
  const auto uncontended = static_cast<std::size_t>(std::count_if(
      excess.begin(), excess.end(), [](double e) { return std::abs(e) <= mlperf::kUncontendedExcess; }));
  fmt::print("contention {} of {} results uncontended (SimGrid = analytical executor to 1e-6: re-simulated "
             "analytically){}\n",
             uncontended, excess.size(),
             contended_pct.empty()
                 ? std::string()
                 : fmt::format("; {} contended, SimGrid slower by median {:.2f} %, max {:.2f} % ({})",
                               contended_pct.size(), analysis::summarise_errors(contended_pct).median_pct,
                               100 * excess[worst], config::printable(set.cases[worst].key())));
}

/// Absolute percentage differences between the surrogate and a re-simulation of every case at the fitted
/// parameters (cases whose re-simulation fails are left out).
std::vector<double> surrogate_differences(const mlperf::CaseSet& set, const analysis::ParameterSpace& space,
                                          const std::vector<double>& fit_x, const std::vector<double>& excess,
                                          int workers)
{
  std::vector<model::Efficiency> fitted;
  for (const auto& c : set.cases)
    fitted.push_back(space.efficiency(c, fit_x));
  auto scenarios = set.scenarios;
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    if (scenarios[i].convergence) // the calibrated overhead, as a run with this calibration adds it
      scenarios[i].convergence->run_start_overhead_s += space.overhead_s(set.cases[i].benchmark, fit_x);
    if (std::abs(excess[i]) <= mlperf::kUncontendedExcess)
      scenarios[i].scenario.executor = model::StepExecutorKind::Analytical;
  }
  const auto simulated = mlperf::simulate_s(scenarios, fitted, workers, print_case_progress);
  std::vector<double> differences;
  for (std::size_t i = 0; i < simulated.size(); ++i)
    if (std::isfinite(simulated[i]))
      differences.push_back(analysis::absolute_percentage_error(space.at_table_s(set.cases[i], fit_x), simulated[i]));
  return differences;
}

void run_calibrate(const CalibrateOptions& options)
{
  const auto start = std::chrono::steady_clock::now();
  (void)checked_output_path(options.output_path, {options.mlperf_dir, options.reference_path});
  const model::Calibration reference =
      options.reference_path.empty() ? config::default_calibration() : config::read_calibration(options.reference_path);
  const mlperf::CaseSet set = mlperf::prepare_calibration_cases(options.mlperf_dir, reference,
                                                {options.workers, options.max_accelerators, print_case_progress,
                                                 options.software_date});
  if (set.cases.empty())
    throw std::invalid_argument("no usable MLPerf result in " + options.mlperf_dir);
  fmt::print("results    {} simulated ({:.0f} s of simulation, slowest {:.1f} s: {}), {} left out{}\n",
             set.cases.size(), set.simulation_wall_s, set.slowest_simulation_s, config::printable(set.slowest_case), set.excluded.size(),
             options.list_excluded ? ":" : " (--list-excluded lists them)");
  if (options.list_excluded)
    for (const auto& why : set.excluded)
      fmt::print("  {}\n", config::printable(why)); // quotes logs and folder names

  // Where SimGrid's reference step equals the analytical executor's, no two transfers shared a
  // link: the re-simulation below runs analytically there, on SimGrid elsewhere.
  const auto excess = mlperf::contention_excess(set, options.workers, print_case_progress);
  print_contention(set, excess);

  const analysis::ParameterSpace space =
      analysis::ParameterSpace(set.cases).with_convergence_basis(options.convergence, set.cases);
  const auto fit = analysis::fit_calibration(space, set.cases);
  std::vector<double> in_sample, loso;
  std::vector<std::string> outliers; // what the robust loss discounts is reported, never dropped silently
  const analysis::LeftOutSeconds left_out =
      analysis::left_out_s_by_mode(space, set.cases, fit.x, static_cast<unsigned>(options.workers));
  const auto& loso_s = left_out.at(analysis::ValidationMode::LeaveOneSystemOut);
  for (std::size_t i = 0; i < set.cases.size(); ++i) {
    const auto& c = set.cases[i];
    const double predicted_s = space.predict_s(c, fit.x);
    in_sample.push_back(analysis::absolute_percentage_error(predicted_s, c.actual_s));
    loso.push_back(analysis::absolute_percentage_error(loso_s[i], c.actual_s));
    if (std::abs(std::log(predicted_s / c.actual_s)) > analysis::outlier_log_error())
      outliers.push_back(fmt::format("  {}/{}/{} {} x{}: {:+.1f} %", config::printable(c.round),
                                     config::printable(c.submitter), config::printable(c.system),
                                     model::to_string(c.benchmark), c.accelerators,
                                     100 * (predicted_s / c.actual_s - 1)));
  }

  // The surrogate against the simulator at the fitted parameters.
  const std::vector<double> differences = surrogate_differences(set, space, fit.x, excess, options.workers);
  const auto difference = analysis::summarise_errors(differences);
  const auto fit_errors = analysis::summarise_errors(in_sample);
  const auto loso_errors = analysis::summarise_errors(loso);

  model::Calibration calibration = calibration_from_fit(space, fit);
  // The links nccl-tests measured are not fitted here: the reference's, which the cases ran with
  // (the fitted classes, kFittedLinkClasses, replace theirs).
  for (const auto& [key, value] : reference.network)
    calibration.network.try_emplace(key, value);
  calibration.collective_s = reference.collective_s;
  calibration.choices = reference.choices;
  calibration.batch_sizes = batch_size_rules(set.entries);
  calibration.convergence_factors = space.convergence_factors(); // none when fitted at the tables
  if (!calibration.software_reference_date) // no trend fitted: the date of the latest round fitted, so that
    calibration.software_reference_date = latest_round_date(set.entries); // predict knows a later round extrapolates
  auto& summary = calibration.summary;
  summary.results = static_cast<int>(set.cases.size());
  summary.fit_median_ape_pct = fit_errors.median_pct;
  summary.loso_median_ape_pct = loso_errors.median_pct;
  summary.surrogate_max_abs_diff_pct = *std::max_element(differences.begin(), differences.end());
  summary.command = "gpuscale calibrate --mlperf <shared/mlperf> -o " + options.output_path +
                    (options.max_accelerators > 0 ? " --max-accelerators " + std::to_string(options.max_accelerators) : "") +
                    (options.convergence != analysis::ParameterSpace::ConvergenceBasis::Runs
                         ? " --convergence " + analysis::to_string(options.convergence)
                         : "") +
                    (options.software_date != mlperf::SoftwareDateSource::FirstRun
                         ? " --software-date " + mlperf::to_string(options.software_date)
                         : "");
  summary.data = "MLPerf Training " + round_span(set.entries) + " closed division (shared/mlperf: scores and trimmed MLLOG logs), " +
                 std::to_string(set.cases.size()) + " results";
  calibration.intervals =
      analysis::interval_model(analysis::validation_mode_residuals(space, set.cases, left_out, calibration), set.cases);
  write_calibration_file(options.output_path, calibration);

  fmt::print("\n{}", format_parameter_table(calibration));
  fmt::print("\nfit        rms log error {:.4f}; APE median {:.1f} %, mean {:.1f} %, p90 {:.1f} % ({} evaluations)\n",
             fit.rms_log_error, fit_errors.median_pct, fit_errors.mean_pct, fit_errors.p90_pct, fit.evaluations);
  fmt::print("outliers   {} of {} results off by more than a factor {:.2f} either way in the fit, weighing under {:.0f} % "
             "of a squared error's pull (robust loss, docs/CALIBRATION.md){}\n",
             outliers.size(), set.cases.size(), std::exp(analysis::outlier_log_error()), 100 * analysis::kOutlierWeight,
             outliers.empty() ? "" : ":");
  for (const auto& line : outliers)
    fmt::print("{}\n", line);
  fmt::print("LOSO       APE median {:.1f} %, mean {:.1f} %, p90 {:.1f} % (gpuscale validate for the details)\n",
             loso_errors.median_pct, loso_errors.mean_pct, loso_errors.p90_pct);
  fmt::print("surrogate  vs re-simulation at the fitted parameters: median {:.2f} %, max {:.2f} % ({} results)\n",
             difference.median_pct, summary.surrogate_max_abs_diff_pct, difference.count);
  std::map<model::Benchmark, double> table_start_s; // the convergence tables' run-start overheads
  for (const auto& c : set.cases)
    table_start_s.try_emplace(c.benchmark, c.fixed_s);
  fmt::print("run start  from run_start to the first block_start / epoch_start, median over the results' runs, "
             "vs the convergence table's run_start_overhead:\n{}",
             format_run_start_check(analysis::measure_run_start_gaps(set.entries), table_start_s));
  fmt::print("written    {} ({:.0f} s)\n", options.output_path,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

} // namespace

void add_calibrate_command(CLI::App& app)
{
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* command = app.add_subcommand(
      "calibrate", "Fit efficiencies and overheads to MLPerf Training results (docs/CALIBRATION.md)");
  command->add_option("--mlperf", options->mlperf_dir, "MLPerf results folder (shared/mlperf layout or upstream)")
      ->required()
      ->check(CLI::ExistingDirectory);
  command->add_option("-o,--output", options->output_path, "Calibration YAML to write")->required();
  command
      ->add_option("-j,--jobs", options->workers,
                   "Simulations (processes) and cross-validation fits (threads) run at once")
      ->check(CLI::PositiveNumber);
  add_software_date_option(*command, options->software_date);
  add_convergence_basis_option(*command, options->convergence);
  command->add_option("--max-accelerators", options->max_accelerators,
                      "Leave out results on more accelerators (0: none left out)");
  command->add_option("--reference", options->reference_path,
                      "Calibration whose efficiencies the reference simulations use (default: the embedded one)")
      ->check(CLI::ExistingFile);
  command->add_flag("--list-excluded", options->list_excluded, "List the results left out and why");
  command->callback([options] { run_calibrate(*options); });
}

} // namespace gpuscale::app
