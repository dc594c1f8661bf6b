/// gpuscale calibrate-network --nccl-tests [OP=]LOG... --platform P -o network.yaml [--calibration FILE]
/// [--collective NAME]:
/// fits the platform's link fractions and collective costs to a cluster's nccl-tests logs
/// (analysis::fit_network, every evaluation one simulated nccl-tests run per log) and writes a
/// network calibration that scenarios (`network_calibration:`) and `gpuscale nccl-tests
/// --network-calibration` apply.

#include "sim/app/CatalogOption.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/ReplacedFile.hpp"
#include "sim/app/NetworkCalibrationReport.hpp"
#include "sim/app/OutputPath.hpp"
#include "analysis/calibration/NetworkFit.hpp"
#include "sim/config/AcceleratorIdentification.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/NcclTestsLogReader.hpp"
#include "sim/config/NcclTestsPlausibility.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/engine/CollectiveBenchmark.hpp"
#include "sim/model/ScenarioResolution.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>

namespace gpuscale::app {
namespace {

struct CalibrateNetworkOptions {
  std::vector<std::string> logs; ///< [OP=]PATH
  std::string platform_path;
  std::string output_path;
  std::string calibration_path; ///< "": start from the committed calibration
  std::string collective = "auto"; ///< what every log is simulated with (NCCL's default: auto)
  int max_evaluations = 300;
};

/// `[OP=]PATH`: a log that names no program (its command line not captured) gets its collective as
/// `all_gather=PATH`. A word before '=' that is not a collective, where no file has the whole name,
/// is an unknown collective.
std::pair<std::optional<model::NcclTestsCollective>, std::string> log_argument(const std::string& argument)
{
  const auto equals = argument.find('=');
  std::error_code error;
  if (equals == std::string::npos || std::filesystem::exists(argument, error))
    return {std::nullopt, argument};
  const std::string name = argument.substr(0, equals);
  const auto op = model::parse_nccl_tests_collective(name);
  if (!op)
    throw std::invalid_argument("--nccl-tests " + argument + ": unknown collective '" + name +
                                "' before '=' (known: " + model::known_nccl_tests_collectives() + ")");
  return {op, argument.substr(equals + 1)};
}

/// Why `log` cannot be simulated on `platform`, as located diagnostics: the GPUs a run of its ranks
/// uses must be laid out as its ranks were (ranks per host = GPUs per node) and be the accelerator
/// it names.
void check_log_fits(const config::NcclTestsLog& log, const model::Platform& platform, const std::string& platform_path,
                    model::CollectiveAlgorithm algorithm, config::Diagnostics& diagnostics)
{
  const auto problem = [&](const std::string& path, const std::string& message) {
    diagnostics.add({log.file, log.devices_line, log.devices_line > 0 ? 1 : 0, path, message});
  };
  if (log.ranks < 2) {
    problem("/devices", fmt::format("{} rank: a collective of one rank moves nothing, so it informs no link", log.ranks));
    return;
  }
  if (log.ranks > platform.gpu_count()) {
    problem("/devices", fmt::format("{} ranks, {} has {} GPUs", log.ranks, platform_path, platform.gpu_count()));
    return;
  }
  const auto used = platform.groups_used(log.ranks);
  const model::NodeType& first = platform.node_type_of_group(used.front().group);
  int nodes = 0;
  for (const auto& use : used)
    nodes += use.nodes;
  if (log.hosts != nodes || (log.hosts > 1 && log.ranks_per_host != first.gpus_per_node))
    problem("/devices", fmt::format("{} ranks on {} hosts ({} per host); a run of {} GPUs of {} uses {} node(s) of "
                                    "{} GPUs ({}): the logged ranks are not laid out as the platform's first nodes",
                                    log.ranks, log.hosts, log.ranks_per_host, log.ranks, platform_path, nodes,
                                    first.gpus_per_node, first.name));
  const model::GpuType& gpu = platform.gpu_type_of(first);
  const auto identified = config::identify_accelerator(platform.gpu_types, log.device);
  if (identified.gpu_type.empty())
    problem("/devices/0", "the logged device '" + log.device + "' is not an accelerator of the catalog (" +
                              identified.error + "); " + platform_path + " has " + gpu.name);
  else if (identified.gpu_type != gpu.name)
    problem("/devices/0", "the logged device '" + log.device + "' is " + identified.gpu_type + ", " + platform_path +
                              "'s first nodes have " + gpu.name);
  if (log.devices_differ)
    problem("/devices", "the ranks run different device models: the platform's first nodes have one");
  if (const auto size_problem = engine::benchmark_size_problem(log.op, log.ranks))
    problem("/devices", *size_problem);
  if (const auto algorithm_problem = engine::benchmark_algorithm_problem(log.op, algorithm))
    problem("", "--collective: " + *algorithm_problem);
  if (log.op == model::NcclTestsCollective::Broadcast && log.root >= log.ranks)
    problem("/rows/0/root", fmt::format("broadcast root {} is not one of the {} ranks", log.root, log.ranks));
}

/// The rows the fit uses: sizes of 0 bytes (a collective that moves nothing: NCCL returns at once)
/// and times printed as 0 carry no time to fit.
std::vector<config::NcclTestsLogRow> fitted_rows(const config::NcclTestsLog& log)
{
  std::vector<config::NcclTestsLogRow> rows;
  for (const auto& row : log.rows)
    if (row.size_bytes > 0 && row.time_s > 0)
      rows.push_back(row);
  return rows;
}

std::vector<NetworkCalibrationLog> read_logs(const CalibrateNetworkOptions& options, const model::Platform& platform,
                                             model::CollectiveAlgorithm algorithm)
{
  config::Diagnostics diagnostics;
  std::vector<NetworkCalibrationLog> logs;
  for (const auto& argument : options.logs) {
    const auto [op, path] = log_argument(argument);
    try {
      NetworkCalibrationLog entry{config::read_nccl_tests_log(path, op), {}};
      check_log_fits(entry.log, platform, options.platform_path, algorithm, diagnostics);
      entry.rows = fitted_rows(entry.log);
      if (entry.rows.empty())
        diagnostics.add({entry.log.file, 0, 0, "/rows", "no row with a size and a time above 0 to fit"});
      config::check_plausible_rows(entry.log, diagnostics);
      logs.push_back(std::move(entry));
    } catch (const config::ConfigError& e) {
      for (const auto& d : e.diagnostics())
        diagnostics.add(d);
    }
  }
  diagnostics.throw_if_any();
  return logs;
}

model::CalibratedValue calibrated_value(const analysis::NetworkFittedParameter& p)
{
  return {p.fitted.value, p.fitted.standard_error, p.fitted.results, p.fitted.identified, p.fitted.note};
}

void write_network_calibration(const std::string& path, const model::Calibration& calibration)
{
  write_replacing(path, [&](std::ostream& out) { out << config::format_network_calibration(calibration); });
}

/// The fit's measured series and the collective benchmarks that simulate them, one of each per log.
struct FitInputs {
  std::vector<int> gpus;
  std::vector<analysis::NetworkFitSeries> series;
  std::vector<engine::CollectiveBenchmarkSpec> specs;
};

FitInputs fit_inputs(const std::vector<NetworkCalibrationLog>& logs, model::CollectiveAlgorithm algorithm)
{
  FitInputs inputs;
  for (const auto& entry : logs) {
    inputs.gpus.push_back(entry.log.ranks);
    analysis::NetworkFitSeries s{entry.log.file, {}};
    engine::CollectiveBenchmarkSpec spec;
    spec.op = entry.log.op;
    spec.algorithm = algorithm;
    spec.gpus = entry.log.ranks;
    spec.root = std::max(0, entry.log.root);
    for (const auto& row : entry.rows) {
      s.measured_s.push_back(row.time_s);
      spec.sizes_bytes.push_back(static_cast<double>(row.size_bytes));
    }
    inputs.series.push_back(std::move(s));
    inputs.specs.push_back(std::move(spec));
  }
  return inputs;
}

/// The network calibration file's contents: the fitted values, the command that fitted them and what
/// they were fitted to.
model::Calibration fitted_calibration(const CalibrateNetworkOptions& options, model::CollectiveAlgorithm algorithm,
                                      const std::vector<NetworkCalibrationLog>& logs,
                                      const std::vector<analysis::NetworkFitSeries>& series,
                                      const analysis::NetworkFitResult& fit)
{
  model::Calibration calibration;
  for (const auto& p : fit.parameters)
    (p.parameter.group == analysis::NetworkParameter::Group::Network ? calibration.network
                                                                      : calibration.collective_s)[p.parameter.key] =
        calibrated_value(p);
  std::string command = "gpuscale calibrate-network --platform " + options.platform_path + " -o " + options.output_path;
  for (const auto& argument : options.logs)
    command += " --nccl-tests " + argument;
  if (!options.calibration_path.empty())
    command += " --calibration " + options.calibration_path;
  if (algorithm != model::CollectiveAlgorithm::Auto)
    command += " --collective " + options.collective;
  calibration.summary.command = command;
  calibration.summary.data = fmt::format("{} nccl-tests log(s) of {}, {} rows; start: {}", logs.size(),
                                         options.platform_path, series_rows(series),
                                         options.calibration_path.empty() ? "the committed calibration"
                                                                          : options.calibration_path);
  calibration.network_fit = network_fit_summary(options.platform_path, logs, fit);
  return calibration;
}

void run_calibrate_network(const CalibrateNetworkOptions& options)
{
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> inputs{options.platform_path};
  for (const auto& argument : options.logs)
    inputs.push_back(log_argument(argument).second);
  if (!options.calibration_path.empty())
    inputs.push_back(options.calibration_path);
  const std::string output = checked_output_path(options.output_path, inputs);
  const auto algorithm = model::parse_collective_algorithm(options.collective);
  if (!algorithm)
    throw std::invalid_argument("--collective: unknown collective algorithm '" + options.collective + "' (known: " +
                                model::known_collective_algorithms() + ")");

  const model::Platform platform = config::read_platform(options.platform_path);
  (void)checked_output_path(options.output_path, platform.source_files); // nor a catalog file the platform imports
  const std::vector<NetworkCalibrationLog> logs = read_logs(options, platform, *algorithm);
  std::optional<model::Calibration> start_file;
  if (!options.calibration_path.empty())
    start_file = config::read_calibration(options.calibration_path);
  const model::LinkFractions start = model::resolve_link_fractions(
      &config::default_calibration(), start_file ? &*start_file : nullptr, model::Efficiency{});

  const FitInputs inputs_of_fit = fit_inputs(logs, *algorithm);
  const analysis::NetworkSimulator simulate = [&](std::size_t i, const model::LinkFractions& links) {
    std::vector<double> times;
    for (const auto& row :
         engine::benchmark_collective(platform, inputs_of_fit.specs[i], {links, model::SimgridNetworkConfig{}}))
      times.push_back(row.time_s);
    return times;
  };
  analysis::NetworkFitOptions fit_options;
  fit_options.max_evaluations = options.max_evaluations;
  const auto fit_started = std::chrono::steady_clock::now();
  const analysis::NetworkFitResult fit =
      analysis::fit_network(start, analysis::network_parameter_candidates(platform, inputs_of_fit.gpus),
                            inputs_of_fit.series, simulate, fit_options);
  const double fit_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - fit_started).count();

  write_network_calibration(output, fitted_calibration(options, *algorithm, logs, inputs_of_fit.series, fit));

  fmt::print("{}", format_network_fit_report(logs, fit));
  for (const auto& warning : network_fit_warnings(fit))
    fmt::print(stderr, "gpuscale: warning: {}\n", warning);
  fmt::print("written    {} ({} evaluations of {} log(s) in {:.1f} s; {:.1f} s in all)\n", options.output_path,
             fit.evaluations, logs.size(), fit_wall_s,
             std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

} // namespace

void add_calibrate_network_command(CLI::App& app)
{
  auto options = std::make_shared<CalibrateNetworkOptions>();
  CLI::App* command = app.add_subcommand(
      "calibrate-network",
      "Fit a platform's link fractions and collective costs to nccl-tests logs (docs/COLLECTIVES.md)");
  command->add_option("--nccl-tests", options->logs,
                      "nccl-tests text logs (all_reduce_perf, ...); OP=LOG for a log that names no program")
      ->required();
  command->add_option("--platform", options->platform_path, "Platform (cluster) YAML file the logs ran on")->required();
  command->add_option("-o,--output", options->output_path, "Network calibration YAML to write")->required();
  command->add_option("--calibration", options->calibration_path,
                      "Calibration whose network: and collective: values the fit starts from (default: the committed one)");
  command->add_option("--collective", options->collective,
                      "Algorithm every log is simulated with, as the scenario key collective takes it (default auto, "
                      "NCCL's default; ring for logs run with NCCL_ALGO=Ring)");
  command->add_option("--max-evaluations", options->max_evaluations,
                      "Most simulations of every log the optimiser may run (default 300)")
      ->check(CLI::Range(10, 100000));
  add_catalog_option(*command);
  command->callback([options] { run_calibrate_network(*options); });
}

} // namespace gpuscale::app
