/// `gpuscale plan SCENARIO.yaml`: the layout search (plan::LayoutSearch) with heterogeneity-aware
/// batch allocation (Poplar, arXiv 2408.12596). Per ZeRO stage: Poplar's split at the scenario's own
/// layout (plan, uniform, subset rows), then tensor and context parallelism, activation checkpointing
/// and CUDA graphs (layout row); the fastest is written out as a complete scenario whose `gpuscale run`
/// is the time printed. docs/HETEROGENEITY.md describes the algorithm.

#include "sim/app/CatalogOption.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/RunSummary.hpp"
#include "sim/app/OutputPath.hpp"
#include "sim/app/ReplacedFile.hpp"
#include "sim/config/ScenarioInputFiles.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "sim/config/ScenarioVariants.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/plan/BatchProfiler.hpp"
#include "sim/plan/LayoutSearch.hpp"
#include "sim/results/ResultsFile.hpp"
#include "sim/run/ScenarioRunner.hpp"
#include "sim/run/Version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <unistd.h>

namespace gpuscale::app {
namespace {

namespace fs = std::filesystem;

struct PlanOptions {
  std::string scenario_path;
  std::string output_path;
  std::string emit_path;
  bool all_stages = false;
  bool search_global_batch = false;
  bool verbose = false;
  int candidates = 1; ///< plans of the whole cluster simulated in full per layout
};

std::string minutes(const plan::Candidate& e)
{
  return e.outcome.time_to_train ? fmt::format("{:.2f}", e.outcome.record.time_to_train_min) : "-";
}

void print_row(const std::optional<plan::Candidate>& e, const std::string& label, int stage,
               const std::optional<plan::Candidate>& uniform, const model::WorkloadTrace& workload)
{
  if (!e) {
    if (label != "layout")
      fmt::print("{:>5}  {:<8} {:>10} {:>9} {:>8}  {}\n", stage, label, "-", "-", "-", "no allocation fits");
    return;
  }
  if (!e->ok()) {
    fmt::print("{:>5}  {:<8} {:>10} {:>9} {:>8}  {} ({})\n", stage, label, "infeasible", "-", "-",
               plan::describe_split(e->split), e->outcome.record.infeasible_reason);
    return;
  }
  const std::string speedup =
      uniform && uniform->ok() ? fmt::format("{:.2f}x", uniform->iter_time_s() / e->iter_time_s()) : "-";
  const std::string layout =
      label == "layout" ? plan::describe_layout(e->scenario.scenario, workload) + "; " : std::string();
  fmt::print("{:>5}  {:<8} {:>10.4f} {:>9} {:>8}  {}{}\n", stage, label, e->iter_time_s(), minutes(*e), speedup, layout,
             plan::describe_split(e->split));
}

bool same_groups(const model::Platform& a, const model::Platform& b)
{
  return a.node_groups.size() == b.node_groups.size() &&
         std::equal(a.node_groups.begin(), a.node_groups.end(), b.node_groups.begin(),
                    [](const auto& x, const auto& y) { return x.node_type == y.node_type && x.count == y.count; });
}

/// The chosen candidate as files `run` reads: the scenario at `scenario_path` and, when it runs on a
/// subset of the node groups, that platform beside it (<stem>.platform.yaml). Returns the texts.
std::pair<std::string, std::string> write_chosen(const config::ScenarioVariants& variants, const plan::Candidate& c,
                                                 const std::string& scenario_path)
{
  model::Scenario emitted = c.scenario.scenario;
  emitted.name = variants.base().scenario.name + "-planned";
  std::string platform_text, platform_path;
  if (!same_groups(c.scenario.platform, variants.base().platform)) {
    const fs::path path(scenario_path);
    platform_path = (path.parent_path() / (path.stem().string() + ".platform.yaml")).string();
    platform_text = variants.platform_yaml(c.scenario.platform);
    write_replacing(platform_path, [&](std::ostream& out) { out << platform_text; });
  }
  const std::string scenario_text = variants.scenario_yaml(emitted, platform_path);
  write_replacing(scenario_path, [&](std::ostream& out) { out << scenario_text; });
  return {scenario_text, platform_text};
}

/// A folder of its own for the emitted files when no --emit is given, removed on every exit path.
struct ScratchFolder {
  fs::path path = fs::temp_directory_path() / fmt::format("gpuscale-plan.{}", ::getpid());
  ScratchFolder() { fs::create_directories(path); }
  ~ScratchFolder()
  {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

/// Every stage asked for at `global_batch`: their searches, in stage order.
std::vector<plan::StageSearch> search_stages(const plan::LayoutSearch& search, const std::vector<int>& stages,
                                             int global_batch)
{
  std::vector<plan::StageSearch> results;
  for (int stage : stages)
    results.push_back(search.search_stage(stage, global_batch));
  return results;
}

const plan::StageSearch* fastest(const std::vector<plan::StageSearch>& results, bool by_time_to_train)
{
  const plan::StageSearch* chosen = nullptr;
  for (const auto& r : results)
    if (plan::better(r.best(), chosen ? chosen->best() : std::nullopt, by_time_to_train))
      chosen = &r;
  return chosen;
}

void plan(const PlanOptions& options)
{
  const auto started = std::chrono::steady_clock::now();
  const config::ScenarioVariants variants(options.scenario_path);
  const model::ResolvedScenario& resolved = variants.base();
  config::Diagnostics ignored;
  const std::string scenario_text = config::read_text_file(options.scenario_path, ignored).value_or("");
  std::vector<std::string> inputs = config::scenario_input_files(resolved.scenario, &resolved.platform);
  inputs.push_back(options.scenario_path);
  const std::string output = options.output_path.empty() ? "" : checked_results_path(options.output_path, inputs);
  const std::string emit = options.emit_path.empty() ? "" : checked_output_path(options.emit_path, inputs);
  if (options.search_global_batch && !resolved.convergence)
    throw std::invalid_argument("--search-global-batch: scenario '" + options.scenario_path +
                                "' has no convergence table (time to train decides the batch)");
  std::vector<int> stages{resolved.scenario.zero_stage};
  if (options.all_stages)
    stages = {0, 1, 2, 3};

  fmt::print("scenario   {} ({} GPUs of {}, global batch {})\n", resolved.scenario.name, resolved.scenario.gpus,
             resolved.platform.name, resolved.scenario.global_batch_size);
  for (const auto& [name, count] : plan::gpu_types_of_run(resolved))
    fmt::print("gpu type   {} x {}\n", count, name);
  const plan::LayoutSearch search(variants, options.candidates);

  // The global batches to search: the scenario's, or every point of its convergence table besides.
  std::vector<int> batches{resolved.scenario.global_batch_size};
  if (options.search_global_batch)
    for (const auto& point : resolved.convergence->points)
      if (std::find(batches.begin(), batches.end(), point.global_batch_size) == batches.end())
        batches.push_back(point.global_batch_size);
  std::vector<plan::StageSearch> results;
  std::optional<plan::Candidate> scenario_batch_best;
  for (int batch : batches) {
    if (options.search_global_batch)
      fmt::print("\nglobal batch {}{}\n", batch, batch == resolved.scenario.global_batch_size ? " (the scenario's)" : "");
    fmt::print("\n{:>5}  {:<8} {:>10} {:>9} {:>8}  {}\n", "zero", "row", "iter [s]", "TTT [min]", "vs unif.",
               "layout; allocation (m = micro-batch, g = accumulation)");
    auto at_batch = search_stages(search, stages, batch);
    for (const auto& r : at_batch) {
      print_row(r.plan, "plan", r.stage, r.uniform, resolved.workload);
      print_row(r.uniform, "uniform", r.stage, r.uniform, resolved.workload);
      print_row(r.subset, "subset", r.stage, r.uniform, resolved.workload);
      print_row(r.layout, "layout", r.stage, r.uniform, resolved.workload);
      if (options.verbose)
        for (const auto& line : r.tried)
          fmt::print("       searched {}\n", line);
    }
    if (const auto* best = fastest(at_batch, options.search_global_batch);
        best && batch == resolved.scenario.global_batch_size)
      scenario_batch_best = best->best();
    results.insert(results.end(), std::make_move_iterator(at_batch.begin()), std::make_move_iterator(at_batch.end()));
  }
  const plan::StageSearch* chosen = fastest(results, options.search_global_batch);
  if (!chosen) {
    fmt::print("\nno feasible plan\n");
  } else {
    const plan::Candidate& best = *chosen->best();
    // The printed time is the emitted scenario's own run: written, read back as `run` reads it, simulated.
    std::optional<ScratchFolder> scratch;
    if (emit.empty())
      scratch.emplace();
    const std::string emitted_path = emit.empty() ? (scratch->path / "planned.yaml").string() : emit;
    const auto [yaml, platform_yaml] = write_chosen(variants, best, emitted_path);
    const run::ScenarioOutcome emitted = run::run_scenario(config::read_scenario(emitted_path), true);
    fmt::print("\nchosen     ZeRO-{}, {}: {}\n", chosen->stage,
               plan::describe_layout(best.scenario.scenario, resolved.workload), plan::describe_split(best.split));
    if (emitted.iteration) {
      fmt::print("iteration  {} s (gpuscale run of the scenario below)\n", emitted.record.iter_time_s);
      if (emitted.time_to_train)
        fmt::print("time to train {:.2f} min at global batch {}\n", emitted.record.time_to_train_min,
                   emitted.record.global_batch_size);
      fmt::print("{}", format_interval_line(emitted));
    } else {
      fmt::print("iteration  the emitted scenario does not run: {}\n", emitted.record.infeasible_reason);
    }
    if (options.search_global_batch && scenario_batch_best && scenario_batch_best->ok() &&
        best.scenario.scenario.global_batch_size != resolved.scenario.global_batch_size &&
        scenario_batch_best->outcome.time_to_train)
      fmt::print("note       the scenario's global batch {} trains in {:.2f} min at its best layout\n",
                 resolved.scenario.global_batch_size, scenario_batch_best->outcome.record.time_to_train_min);
    if (!platform_yaml.empty())
      fmt::print("\n# the platform it runs on (a subset of {}){}:\n{}", resolved.platform.name,
                 emit.empty() ? "" : ", written to " + fs::path(emitted_path).replace_extension().string() +
                                         ".platform.yaml",
                 platform_yaml);
    fmt::print("\n# the scenario to run{}:\n{}", emit.empty() ? " (--emit FILE writes it)" : ", written to " + emit, yaml);
  }
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  fmt::print("\nplanned in {:.1f} s\n", elapsed_s);
  if (!options.output_path.empty()) {
    std::vector<results::RunToWrite> rows;
    for (const auto& r : results)
      for (const auto* e : {&r.plan, &r.uniform, &r.subset, &r.layout})
        if (*e)
          rows.push_back({(*e)->outcome.record, scenario_text});
    if (!rows.empty()) {
      const auto ids = results::append_runs(output, std::move(rows), run::gpuscale_version());
      fmt::print("results    {} (rows {}-{} of /runs)\n", options.output_path, ids.front(), ids.back());
    }
  }
}

} // namespace

void add_plan_command(CLI::App& app)
{
  auto options = std::make_shared<PlanOptions>();
  CLI::App* command = app.add_subcommand(
      "plan", "Search the layout (ZeRO stage, tp, cp, activation checkpointing, CUDA graphs) and per-GPU-type batch "
              "allocation that minimises iteration time, and write it as a scenario");
  command->add_option("scenario", options->scenario_path, "Scenario YAML file (platform, workload, global batch, ZeRO stage)")
      ->required();
  command->add_option("-o,--output", options->output_path,
                      "HDF5 results file to append the plan, uniform, subset and layout rows to");
  command->add_option("--emit", options->emit_path,
                      "Write the chosen scenario (and, on a subset of the node groups, its platform as "
                      "<stem>.platform.yaml beside it) to this file, ready for gpuscale run");
  command->add_flag("--all-stages", options->all_stages, "Plan for every ZeRO stage 0-3, not only the scenario's");
  command->add_flag("--search-global-batch", options->search_global_batch,
                    "Also search the global batch over the convergence table's batch sizes, by time to train");
  command->add_flag("-v,--verbose", options->verbose, "Print every layout searched with its time or why it was skipped");
  command->add_option("--candidates", options->candidates, "Best predicted plans of the whole cluster simulated in full")
      ->check(CLI::Range(1, 64));
  add_catalog_option(*command);
  command->callback([options] { plan(*options); });
}

} // namespace gpuscale::app
