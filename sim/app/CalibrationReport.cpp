#include "sim/app/CalibrationReport.hpp"
#include "sim/app/ReplacedFile.hpp"

#include "analysis/calibration/ValidationSplit.hpp"
#include "analysis/maths/IsotonicRegression.hpp"
#include "sim/config/CalibrationReader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

namespace gpuscale::app {

model::Calibration calibration_from_fit(const analysis::ParameterSpace& space,
                                        const analysis::CalibrationFitResult& fit)
{
  using Group = analysis::ParameterSpace::Group;
  model::Calibration calibration;
  calibration.generation[model::kReferenceGeneration] = {
      model::kReferenceComputeFraction, 0.0, 0, true,
      "reference generation: declared, a large bf16 GEMM sustains about 790 of 989 TFLOP/s on an H200 "
      "(shared/references/COMPUTE.md); sets the scale of compute x generation"};
  for (std::size_t i = 0; i < space.size(); ++i) {
    const auto& p = space.parameters()[i];
    const auto& f = fit.parameters[i];
    const model::CalibratedValue value{f.value, f.standard_error, f.results, f.identified, f.note};
    switch (p.group) {
      case Group::Compute: calibration.compute[*p.benchmark] = value; break;
      case Group::Generation: calibration.generation[p.label] = value; break;
      case Group::Memory: calibration.memory[*p.benchmark] = value; break;
      case Group::Network: calibration.network[p.label] = value; break;
      case Group::Overhead: calibration.overhead_s[*p.benchmark] = value; break;
      case Group::StepOverhead: calibration.step_overhead_s[*p.benchmark] = value; break;
      case Group::Maturity: calibration.maturity[p.label] = value; break;
    }
  }
  if (space.reference_year() > 0) {
    calibration.software_reference_date = model::SoftwareDate{space.reference_year()};
    if (auto gap = calibration.maturity.find(model::kMaturityGapKey);
        gap != calibration.maturity.end() && gap->second.identified && gap->second.note.empty())
      gap->second.note = "measured on the dated repeats of every benchmark";
  }
  return calibration;
}

std::vector<model::BatchSizePoint> batch_size_rules(const std::vector<model::MlperfEntry>& entries)
{
  std::map<model::Benchmark, std::map<int, std::vector<double>>> sizes; // benchmark -> accelerators -> batches
  for (const auto& e : entries) {
    const int n = e.description.accelerators_total();
    if (n > 0 && e.global_batch_size > 0)
      sizes[e.benchmark][n].push_back(e.global_batch_size);
  }
  std::vector<model::BatchSizePoint> points;
  for (const auto& [benchmark, by_count] : sizes) {
    std::vector<std::vector<double>> groups;
    for (const auto& [n, batches] : by_count)
      groups.push_back(batches);
    // Submitters grow the batch with the machine. A count whose few results ran a smaller batch than
    // the many at a smaller count (6 GPUs at 66 against 19 results of 8 GPUs at 768) is pooled with its
    // neighbours, at the median of all their results, instead of making the rule fall and rise again.
    const auto fitted = analysis::fit_isotonic_median(groups);
    std::size_t i = 0;
    for (const auto& [n, batches] : by_count) {
      points.push_back({benchmark, n, static_cast<int>(fitted[i]), static_cast<int>(batches.size())});
      ++i;
    }
  }
  return points;
}

std::optional<model::SoftwareDate> latest_round_date(const std::vector<model::MlperfEntry>& entries)
{
  std::optional<model::SoftwareDate> latest;
  for (const auto& e : entries)
    if (const auto date = model::mlperf_round_date(e.round); date && (!latest || *date > *latest))
      latest = date;
  return latest;
}

std::string round_span(const std::vector<model::MlperfEntry>& entries)
{
  std::string first, last;
  for (const auto& e : entries) {
    if (first.empty() || analysis::round_before(e.round, first))
      first = e.round;
    if (last.empty() || analysis::round_before(last, e.round))
      last = e.round;
  }
  return first == last ? first : first + "-" + last;
}

std::string format_parameter_table(const model::Calibration& c)
{
  std::string out = fmt::format("{:<28} {:>10} {:>10} {:>8}  {}\n", "parameter", "value", "1-sigma", "results",
                                "identified");
  auto row = [&](const std::string& name, const model::CalibratedValue& v, const char* unit) {
    out += fmt::format("{:<28} {:>9.4g}{} {:>9.3g}{} {:>8}  {}\n", name, v.value, unit, v.standard_error, unit,
                       v.results, v.identified ? (v.note.empty() ? "yes" : "yes; " + v.note) : "NO: " + v.note);
  };
  model::Calibration::for_each_group(c, [&](const char* key, const auto& values, bool seconds) {
    for (const auto& [name, v] : values)
      row(std::string(key) + "." + model::key_text(name), v, seconds ? "s" : " ");
  });
  return out;
}

std::string format_run_start_check(const std::vector<analysis::RunStartGap>& gaps,
                                   const std::map<model::Benchmark, double>& table_s)
{
  std::string out;
  for (const auto& gap : gaps) {
    const auto table = table_s.find(gap.benchmark);
    if (table == table_s.end())
      continue;
    const bool off = table->second < gap.logged_s - analysis::kRunStartToleranceS;
    out += fmt::format("  {:<18} logged {:6.2f} s ({} results), table {:6.2f} s{}\n", model::to_string(gap.benchmark),
                       gap.logged_s, gap.results, table->second,
                       off ? fmt::format("  TOO LOW: run_start_overhead in workloads/convergence/{}.yaml must cover the "
                                         "logged start",
                                         model::to_string(gap.benchmark))
                           : "");
  }
  return out;
}

std::string format_step_rate_check(const analysis::StepRateCheck& check)
{
  std::string out = fmt::format("  {:<18} {:<13} {:>7} {:>14} {:>14}\n", "benchmark", "nodes", "results",
                                "median error", "median |error|");
  for (const auto& g : check.groups)
    out += fmt::format("  {:<18} {:<13} {:>7} {:>+13.1f}% {:>13.1f}%\n", model::to_string(g.benchmark),
                       g.several_nodes ? "several" : "one", g.results, g.median_error_pct, g.median_abs_error_pct);
  out += "  one node, by accelerator (median error, results):\n";
  for (std::size_t i = 0; i < check.families.size();) {
    const model::Benchmark benchmark = check.families[i].benchmark;
    std::string line;
    for (; i < check.families.size() && check.families[i].benchmark == benchmark; ++i)
      line += fmt::format("{}{} {:+.1f}% ({})", line.empty() ? "" : ", ", check.families[i].family,
                          check.families[i].median_error_pct, check.families[i].results);
    out += fmt::format("    {:<18} {}\n", model::to_string(benchmark), line);
  }
  bool header = false;
  for (const auto& r : check.results) {
    if (std::abs(r.error_pct) <= analysis::kStepRateListPct)
      continue;
    if (!header) {
      out += fmt::format("  off by more than {:.0f} %:\n", analysis::kStepRateListPct);
      header = true;
    }
    out += fmt::format("    {:<62} {:<16} x{:<5} logged {:>11.4g} simulated {:>11.4g} samples/s {:+6.1f}%\n", r.key,
                       r.family, r.accelerators, r.logged_samples_per_s, r.simulated_samples_per_s, r.error_pct);
  }
  return out;
}

void write_calibration_file(const std::string& path, const model::Calibration& calibration)
{
  write_replacing(path, [&](std::ostream& out) { out << config::format_calibration(calibration); });
}

void print_case_progress(const char* what, std::size_t done, std::size_t total)
{
  fmt::print(stderr, "\r{} {}/{}", what, done, total);
  if (done == total)
    fmt::print(stderr, "\n");
}

} // namespace gpuscale::app
