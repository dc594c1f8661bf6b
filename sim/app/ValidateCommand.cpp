#include "sim/mlperf/CalibrationCases.hpp"
#include "sim/app/BaselineComparisonReport.hpp"
#include "sim/app/ConvergenceBasisOption.hpp"
#include "sim/app/SoftwareDateOption.hpp"
#include "sim/app/CalibrationReport.hpp"
#include "sim/app/CommandExit.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/OutputPath.hpp"
#include "sim/app/ReplacedFile.hpp"
#include "sim/app/ValidationPlot.hpp"
#include "analysis/calibration/BaselineComparison.hpp"
#include "analysis/calibration/CalibrationFit.hpp"
#include "analysis/calibration/CrossValidation.hpp"
#include "analysis/calibration/PredictionIntervals.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/PrintableText.hpp"
#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>

namespace gpuscale::app {
namespace {

struct ValidateOptions {
  std::string mlperf_dir;
  std::string calibration_path; ///< "": the embedded calibration
  std::string plot_path;
  int workers = 2;
  int max_accelerators = 0;
  mlperf::SoftwareDateSource software_date = mlperf::SoftwareDateSource::FirstRun; ///< software maturity (docs/CALIBRATION.md)
  /// Each result fitted at its own runs' samples, predictions at the measured convergence factors.
  analysis::ParameterSpace::ConvergenceBasis convergence = analysis::ParameterSpace::ConvergenceBasis::Runs;
  double max_median_ape_pct = 0; ///< > 0: exit 1 when the LOSO median APE exceeds it
  std::string write_intervals_path; ///< "": none; else a calibration file whose intervals: are replaced
  std::string residuals_path;       ///< "": none; else a CSV of every mode's left-out predictions
};

/// One row per (prediction regime, left-out result): what the intervals are built from, for a user
/// who wants to look at the errors behind them. Written to a temporary name, then renamed.
void write_mode_residuals(const std::string& path, const std::vector<analysis::ModeResiduals>& modes,
                          const std::vector<analysis::CalibrationCase>& cases)
{
  write_replacing(path, [&](std::ostream& out) {
    out << "regime,round,system,family,benchmark,accelerators,actual_minutes,predicted_minutes,log_residual,parameter_log_sd\n";
    for (const auto& mode : modes)
      for (std::size_t k = 0; k < mode.cases.size(); ++k) {
        const auto& c = cases[mode.cases[k]];
        const double r = mode.log_residuals[k];
        out << fmt::format("{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g}\n", model::to_string(mode.regime), c.round,
                           c.system_key, c.family, model::to_string(c.benchmark), c.accelerators, units::to_minutes(c.actual_s),
                           units::to_minutes(c.actual_s) / std::exp(r), r,
                           k < mode.parameter_log_sd.size() ? mode.parameter_log_sd[k] : 0.0);
      }
  });
}

/// The coverage of the 80 % intervals per validation mode, and their width.
void print_interval_coverage(const model::IntervalModel& intervals)
{
  fmt::print("\nPrediction intervals: nominal {:.0f} % from each mode's left-out log residuals; coverage of left-out\n"
             "results by intervals built without their own system (target 75-85 %; +- its binomial 1-sigma at n)\n",
             model::kIntervalLevel * 100);
  fmt::print("  {:<34} {:>4} {:>10} {:>10} {:>9} {:>6}\n", "mode", "n", "low", "high", "coverage", "+-");
  const auto row = [](const std::string& name, const model::ResidualQuantiles& q) {
    // What a true 80 % interval would show on q.results results: the binomial spread of the coverage.
    const double spread = q.results > 0 ? std::sqrt(model::kIntervalLevel * (1 - model::kIntervalLevel) / q.results) : 0.0;
    fmt::print("  {:<34} {:>4} {:>+9.1f}% {:>+9.1f}% {:>8.1f}% {:>5.1f}%\n", name, q.results,
               (std::exp(q.low_log) - 1) * 100, (std::exp(q.high_log) - 1) * 100, q.coverage * 100, spread * 100);
  };
  for (auto regime : model::all_prediction_regimes()) {
    row(model::to_string(regime), intervals.modes.at(model::to_string(regime)));
    for (const auto& name : model::generation_mode_keys(intervals, regime))
      row("  " + name, intervals.modes.at(name));
  }
}

/// The pair bounds each ratio is judged by, with their coverage by system, and the coverage per
/// accelerator family of the modes a `run` of known hardware falls in.
void print_pair_and_family_coverage(const std::vector<analysis::ModeResiduals>& modes,
                                    const std::vector<analysis::CalibrationCase>& cases)
{
  fmt::print("\nRatio intervals: bounds of r_i - r_j over ordered pairs of one benchmark's left-out results (the ratio\n"
             "of two options); coverage by system: the pairs with a member of a system against the bounds of the\n"
             "pairs with none\n");
  fmt::print("  {:<34} {:<13} {:>7} {:>10} {:>10} {:>9}\n", "mode", "pairs", "n", "low", "high", "coverage");
  for (const auto& mode : modes)
    for (auto pair_class : {model::PairClass::SameFamily, model::PairClass::OtherFamily}) {
      const auto summary = analysis::summarise_pairs(mode, cases, pair_class);
      if (summary.quantiles.pairs == 0)
        continue;
      fmt::print("  {:<34} {:<13} {:>7} {:>+9.1f}% {:>+9.1f}% {:>9}\n", model::to_string(mode.regime),
                 model::to_string(pair_class), summary.quantiles.pairs, (std::exp(summary.quantiles.low_log) - 1) * 100,
                 (std::exp(summary.quantiles.high_log) - 1) * 100, summary.judged > 0 ? fmt::format("{:.1f}%", summary.coverage * 100) : std::string("-"));
    }
  for (auto regime : {model::PredictionRegime::CalibratedFamily, model::PredictionRegime::ThinlyCalibratedFamily,
                      model::PredictionRegime::LaterRound,
                      model::PredictionRegime::BeyondCalibratedScale}) {
    const auto& mode = modes[static_cast<std::size_t>(regime)];
    fmt::print("\nCoverage per accelerator family, {} (results inside / judged)\n", model::to_string(regime));
    for (const auto& [family, counts] : analysis::coverage_by_family_as_predicted(mode, cases))
      fmt::print("  {:<18} {:>3} / {:<3} {:>6.1f}%\n", family, counts.second, counts.first,
                 100.0 * counts.second / std::max(1, counts.first));
  }
}

void print_summary_row(const std::string& name, const std::vector<double>& apes)
{
  const auto s = analysis::summarise_errors(apes);
  fmt::print("  {:<18} {:>4} {:>9.1f} {:>9.1f} {:>9.1f}\n", name, s.count, s.median_pct, s.mean_pct, s.p90_pct);
}

/// Absolute percentage errors of the left-out predictions, grouped as the summaries print them.
struct LeftOutErrors {
  std::map<model::Benchmark, std::vector<double>> by_benchmark;       ///< leave-one-system-out
  std::map<std::string, std::vector<double>> by_bucket;               ///< leave-one-system-out
  std::map<std::string, std::vector<double>> by_family;               ///< leave-one-family-out
  std::vector<double> all;       ///< leave-one-system-out, every result
  std::vector<double> in_sample; ///< the fit on all results
  std::vector<PlotPoint> points; ///< actual vs leave-one-system-out prediction
};

/// Prints one row per result (leave-one-system-out prediction and error) and collects the errors.
LeftOutErrors print_left_out_predictions(const analysis::ParameterSpace& space,
                                         const std::vector<analysis::CalibrationCase>& cases,
                                         const std::vector<double>& fit_x, const std::vector<double>& loso,
                                         const std::vector<double>& lofo)
{
  std::vector<std::size_t> order(cases.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(cases[a].benchmark, cases[a].accelerators, cases[a].actual_s) <
           std::tie(cases[b].benchmark, cases[b].accelerators, cases[b].actual_s);
  });
  fmt::print("\nLeave-one-system-out: each result predicted by a fit without any result of its system\n");
  fmt::print("{:<62} {:<17} {:>5} {:>9} {:>9} {:>8} {:>7}\n", "system", "benchmark", "accel", "actual", "predicted",
             "error", "sim s");
  LeftOutErrors e;
  for (std::size_t i : order) {
    const auto& c = cases[i];
    const double error = (loso[i] - c.actual_s) / c.actual_s * 100.0;
    fmt::print("{:<62} {:<17} {:>5} {:>9.2f} {:>9.2f} {:>+7.1f}% {:>7.1f}\n", config::printable(c.round + "/" + c.system_key),
               model::to_string(c.benchmark), c.accelerators, units::to_minutes(c.actual_s), units::to_minutes(loso[i]), error,
               c.simulation_s);
    e.by_benchmark[c.benchmark].push_back(std::abs(error));
    e.by_bucket[bucket_label(c.accelerators)].push_back(std::abs(error));
    e.by_family[c.family].push_back(analysis::absolute_percentage_error(lofo[i], c.actual_s));
    e.all.push_back(std::abs(error));
    e.in_sample.push_back(
        analysis::absolute_percentage_error(space.predict_s(c, fit_x), c.actual_s));
    e.points.push_back({model::to_string(c.benchmark), c.actual_s, loso[i]});
  }
  return e;
}

/// Prints the error summaries: per benchmark, per scale, in-sample, and per left-out accelerator family.
void print_error_summaries(const LeftOutErrors& e)
{
  fmt::print("\nAbsolute percentage error, leave-one-system-out\n  {:<18} {:>4} {:>9} {:>9} {:>9}\n", "", "n",
             "median %", "mean %", "p90 %");
  for (const auto& [benchmark, apes] : e.by_benchmark)
    print_summary_row(model::to_string(benchmark), apes);
  print_summary_row("all", e.all);
  fmt::print("  by accelerators\n");
  for (const char* bucket : {"<=8", "9-64", "65-512", ">512"})
    if (e.by_bucket.contains(bucket))
      print_summary_row(bucket, e.by_bucket.at(bucket));
  fmt::print("  in-sample fit (all results)\n");
  print_summary_row("all", e.in_sample);
  fmt::print("\nLeave-one-accelerator-family-out: the family's results predicted without any of them\n"
             "(its generation factor then falls back to the reference generation's, Hopper's 0.8, when no other\n"
             "family shares the generation)\n");
  fmt::print("  {:<18} {:>4} {:>9} {:>9} {:>9}\n", "family", "n", "median %", "mean %", "p90 %");
  for (const auto& [name, apes] : e.by_family)
    print_summary_row(name, apes);
}

/// Software maturity of the full fit and of the leave-round-out fit (the earlier rounds alone), with
/// its 1-sigma: what the latest round is extrapolated with.
void print_software_maturity(const analysis::ParameterSpace& space, const std::vector<analysis::CalibrationCase>& cases,
                           const std::vector<double>& fit_x)
{
  if (space.reference_year() <= 0)
    return;
  const auto full = analysis::fit_calibration(space, cases, {}, fit_x, true);
  const auto folds = analysis::validation_folds(analysis::ValidationMode::LeaveRoundOut, cases);
  fmt::print("\nSoftware maturity (at_launch: fraction of the mature efficiency at age 0; gap_kept_per_year: the\n"
             "fraction of the gap to mature left a year later; 1: none)\n");
  fmt::print("  {:<30} {:>24} {:>34}\n", "", "all results", "leave_round_out (earlier rounds)");
  std::optional<analysis::CalibrationFitResult> fold_fit;
  std::optional<analysis::ParameterSpace> fold_space;
  if (!folds.empty()) {
    fold_space = space.for_training(cases, folds.front().train);
    fold_fit = analysis::fit_calibration(*fold_space, cases, folds.front().train, fit_x, true);
  }
  fmt::print("  {:<30} {:>24} {:>34}\n", "reference date", model::to_string(model::SoftwareDate{space.reference_year()}),
             fold_space ? model::to_string(model::SoftwareDate{fold_space->reference_year()}) : std::string("-"));
  for (std::size_t j = 0; j < space.size(); ++j) {
    const auto& p = space.parameters()[j];
    if (p.group != analysis::ParameterSpace::Group::Maturity)
      continue;
    auto cell = [](const analysis::FittedParameter& f) {
      return fmt::format("{:.4f} +- {:.4f} ({} results{})", f.value, f.standard_error, f.results,
                         f.identified ? "" : ", " + f.note);
    };
    // A parameter the fold measures no repeat of stays at no maturity gap there.
    const bool used = fold_fit && fold_fit->parameters[j].results > 0;
    fmt::print("  {:<30} {:>24} {:>34}\n", p.name, cell(full.parameters[j]),
               used ? cell(fold_fit->parameters[j]) : std::string("no dated repeats"));
  }
}

/// The gate's threshold: a comparison with NaN is always false and a negative or zero threshold is
/// the gate switched off, so both are usage errors (exit 2), not a gate that never closes.
CLI::Validator positive_finite_percent()
{
  return CLI::Validator(
      [](std::string& text) {
        double value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value <= 0)
          return "expected a positive, finite percentage, got '" + text + "'";
        return std::string();
      },
      "PERCENT > 0");
}

void run_validate(const ValidateOptions& options)
{
  // Every output checked before any simulation, against everything validate reads. --write-intervals
  // is the one file it rewrites on purpose, and may be the --calibration validated: only the MLPerf
  // folder is out of bounds for it.
  const std::vector<std::string> inputs{options.mlperf_dir, options.calibration_path, options.write_intervals_path};
  if (!options.residuals_path.empty())
    (void)checked_output_path(options.residuals_path, inputs);
  if (!options.plot_path.empty())
    for (const std::string suffix : {"", ".dat", ".gp"}) // the PNG, and gnuplot's data and script beside it
      (void)checked_output_path(options.plot_path + suffix, inputs);
  if (!options.write_intervals_path.empty())
    (void)checked_output_path(options.write_intervals_path, {options.mlperf_dir});
  const model::Calibration reference = options.calibration_path.empty()
                                           ? config::default_calibration()
                                           : config::read_calibration(options.calibration_path);
  const mlperf::CaseSet set =
      mlperf::prepare_calibration_cases(options.mlperf_dir, reference, {options.workers, options.max_accelerators, print_case_progress,
                                                 options.software_date});
  if (set.cases.empty())
    throw std::invalid_argument("no usable MLPerf result in " + options.mlperf_dir);
  const auto& cases = set.cases;
  const analysis::ParameterSpace space =
      analysis::ParameterSpace(cases).with_convergence_basis(options.convergence, cases);
  const auto fit = analysis::fit_calibration(space, cases, {}, {}, false);
  // Every mode's refits, once: the error tables, the intervals and the regression comparison share them.
  const analysis::LeftOutSeconds left_out =
      analysis::left_out_s_by_mode(space, cases, fit.x, static_cast<unsigned>(options.workers));
  const auto& loso = left_out.at(analysis::ValidationMode::LeaveOneSystemOut);
  const auto& lofo = left_out.at(analysis::ValidationMode::LeaveOneFamilyOut);

  const LeftOutErrors errors = print_left_out_predictions(space, cases, fit.x, loso, lofo);
  print_error_summaries(errors);
  const auto modes = analysis::validation_mode_residuals(space, cases, left_out, reference);
  const model::IntervalModel intervals = analysis::interval_model(modes, cases);
  print_interval_coverage(intervals);
  print_pair_and_family_coverage(modes, cases);
  if (!options.residuals_path.empty()) {
    write_mode_residuals(options.residuals_path, modes, cases);
    fmt::print("residuals  written to {}\n", options.residuals_path);
  }
  if (!options.write_intervals_path.empty()) {
    model::Calibration updated = config::read_calibration(options.write_intervals_path);
    updated.intervals = intervals;
    write_calibration_file(options.write_intervals_path, updated);
    fmt::print("intervals  written to {}\n", options.write_intervals_path);
  }
  print_software_maturity(space, cases, fit.x);
  print_baseline_comparison(analysis::compare_with_regression(cases, left_out));
  const analysis::StepRateCheck rates = analysis::check_step_rates(cases);
  fmt::print("\nStep rate: the simulated step (this calibration, no fit) against the rate the logs show each result\n"
             "training at once warmed up (between evaluations; no start, warm-up, evaluation or convergence in it);\n"
             "error = simulated / logged - 1, > 0: the model steps faster ({} of {} results log it)\n{}",
             rates.results.size(), cases.size(), format_step_rate_check(rates));
  fmt::print("\n{} results ({} left out: gpuscale calibrate --list-excluded), simulation {:.0f} s\n", cases.size(),
             set.excluded.size(), set.simulation_wall_s);
  if (!options.plot_path.empty()) {
    const auto overall = analysis::summarise_errors(errors.all);
    const std::string why = write_validation_plot(
        options.plot_path,
        fmt::format("MLPerf Training, leave-one-system-out: median APE {:.1f} %, n = {}", overall.median_pct,
                    overall.count),
        errors.points);
    fmt::print("plot       {}\n", why.empty() ? options.plot_path : why);
  }
  const double median = analysis::summarise_errors(errors.all).median_pct;
  if (options.max_median_ape_pct > 0 && median > options.max_median_ape_pct)
    throw CommandExit(1, fmt::format("leave-one-system-out median APE {:.2f} % exceeds the threshold {:.2f} %", median,
                                     options.max_median_ape_pct));
}

} // namespace

void add_validate_command(CLI::App& app)
{
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand(
      "validate", "Cross-validate the calibration against MLPerf results (leave one system / family / the latest "
                  "round out, extrapolate in scale) and compare it with a two-parameter scaling regression");
  command->add_option("--mlperf", options->mlperf_dir, "MLPerf results folder")->required()->check(CLI::ExistingDirectory);
  command->add_option("--calibration", options->calibration_path,
                      "Calibration whose efficiencies the reference simulations use (default: the embedded one)")
      ->check(CLI::ExistingFile);
  command->add_option("--plot", options->plot_path, "Predicted-vs-actual PNG to write (gnuplot)");
  command
      ->add_option("-j,--jobs", options->workers,
                   "Simulations (processes) and cross-validation fits (threads) run at once")
      ->check(CLI::PositiveNumber);
  add_software_date_option(*command, options->software_date);
  add_convergence_basis_option(*command, options->convergence);
  command->add_option("--max-accelerators", options->max_accelerators,
                      "Leave out results on more accelerators (0: none left out)");
  command->add_option("--max-median-ape", options->max_median_ape_pct,
                      "Exit with status 1 if the leave-one-system-out median APE exceeds this many percent")
      ->check(positive_finite_percent());
  command->add_option("--write-intervals", options->write_intervals_path,
                      "Calibration file whose prediction intervals (intervals:) to replace by these (parameters untouched)")
      ->check(CLI::ExistingFile);
  command->add_option("--residuals", options->residuals_path,
                      "CSV to write: every validation mode's left-out predictions and log residuals, one row each");
  command->callback([options] { run_validate(*options); });
}

} // namespace gpuscale::app
