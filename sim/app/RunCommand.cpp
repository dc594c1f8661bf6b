#include "sim/app/CatalogOption.hpp"
#include "sim/config/ScenarioInputFiles.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/OutputPath.hpp"
#include "sim/app/RunProgress.hpp"
#include "sim/app/RunSummary.hpp"
#include "sim/run/ScenarioRunner.hpp"
#include "sim/run/SimulationCost.hpp"
#include "sim/app/SweepProgress.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/results/ResultsFile.hpp"
#include "sim/run/Version.hpp"

#include <fmt/format.h>

#include <memory>

namespace gpuscale::app {

namespace {

struct RunOptions {
  std::string scenario_path;
  std::string output_path;
};

void run(const RunOptions& options)
{
  const model::ResolvedScenario resolved = config::read_scenario(options.scenario_path);
  run::check_simulation_size(resolved.scenario.gpus, "scenario " + options.scenario_path);
  config::Diagnostics ignored;
  const std::string scenario_text = config::read_text_file(options.scenario_path, ignored).value_or("");
  std::vector<std::string> inputs = config::scenario_input_files(resolved.scenario, &resolved.platform);
  inputs.push_back(options.scenario_path);
  const std::string output = options.output_path.empty() ? "" : checked_results_path(options.output_path, inputs);
  const auto& s = resolved.scenario;
  const run::ScenarioOutcome outcome = [&] {
    RunProgress progress(fmt::format("simulating {} GPUs x {} layers, {:.3g} cost units (GPUs x layers x micro-batches)",
                                     s.gpus, resolved.workload.layers.size(), run::simulation_cost_units(s, resolved.workload)));
    return run::run_scenario(resolved, false);
  }();
  fmt::print("{}", format_run_summary(resolved, outcome));
  if (!options.output_path.empty()) {
    const auto ids = results::append_runs(output, {{outcome.record, scenario_text}}, run::gpuscale_version());
    fmt::print("results    {} (row {} of /runs)\n", options.output_path, ids.front());
  }
}

} // namespace

void add_run_command(CLI::App& app)
{
  auto options = std::make_shared<RunOptions>();
  CLI::App* command = app.add_subcommand("run", "Simulate one training step of a scenario and print its summary");
  command->add_option("scenario", options->scenario_path, "Scenario YAML file")->required();
  command->add_option("-o,--output", options->output_path, "HDF5 results file to append one row to");
  add_catalog_option(*command);
  command->callback([options] { run(*options); });
}

} // namespace gpuscale::app
