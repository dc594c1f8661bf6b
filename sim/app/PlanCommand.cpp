/// `gpuscale plan SCENARIO.yaml`: heterogeneity-aware batch allocation (Poplar, arXiv 2408.12596).
/// Per ZeRO stage: profile every GPU type (BatchProfiler), search the allocation (analysis::plan_batch)
/// on the whole cluster and on subsets that leave the slowest types out, simulate the best plans in
/// full, and compare with DeepSpeed's uniform allocation and the best homogeneous subset.
/// docs/HETEROGENEITY.md describes the algorithm.

#include "sim/config/ScenarioInputFiles.hpp"
#include "sim/app/CatalogOption.hpp"
#include "sim/plan/BatchProfiler.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/OutputPath.hpp"
#include "sim/run/ScenarioRunner.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/results/ResultsFile.hpp"
#include "sim/run/Version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>

namespace gpuscale::app {
namespace {

struct PlanOptions {
  std::string scenario_path;
  std::string output_path;
  bool all_stages = false;
  int candidates = 1; ///< plans of the whole cluster simulated in full per stage
};

/// One simulated allocation.
struct Evaluated {
  std::string label; ///< plan | uniform | subset
  analysis::BatchPlan plan;
  run::ScenarioOutcome outcome;
  double iter_time_s() const { return outcome.iteration ? outcome.record.iter_time_s : 0; }
  bool ok() const { return outcome.iteration.has_value(); }
};

std::string describe(const analysis::BatchPlan& plan)
{
  std::string text;
  for (const auto& share : plan.shares)
    text += fmt::format("{}{}x {} m={} g={}", text.empty() ? "" : ", ", share.gpus, share.gpu_type, share.micro_batch,
                        share.accumulation);
  return text;
}

Evaluated simulate(const model::ResolvedScenario& run, const analysis::BatchPlan& plan, const std::string& label,
                   int stage)
{
  const auto planned = plan::apply_plan(run, plan, fmt::format("/zero{}-{}", stage, label));
  return {label, plan, run::run_scenario(planned, true)};
}

/// The same simulation under another row label: the label and the scenario name the results row
/// records ("<name>/zero<stage>-<label>"), so that the plan row is called plan whichever candidate won.
Evaluated relabelled(Evaluated e, int stage, const std::string& label)
{
  std::string& name = e.outcome.record.scenario;
  const std::string old_suffix = fmt::format("/zero{}-{}", stage, e.label);
  if (name.size() >= old_suffix.size() && name.compare(name.size() - old_suffix.size(), old_suffix.size(), old_suffix) == 0)
    name.replace(name.size() - old_suffix.size(), old_suffix.size(), fmt::format("/zero{}-{}", stage, label));
  e.label = label;
  return e;
}

/// Better: simulated and faster.
bool better(const std::optional<Evaluated>& candidate, const std::optional<Evaluated>& best)
{
  if (!candidate || !candidate->ok())
    return false;
  return !best || !best->ok() || candidate->iter_time_s() < best->iter_time_s();
}

struct StageResult {
  int stage = 0;
  std::optional<Evaluated> plan, uniform, subset;
};

StageResult evaluate_stage(const model::ResolvedScenario& base, int stage, int candidates)
{
  StageResult result;
  result.stage = stage;
  model::ResolvedScenario run = base;
  run.scenario.zero_stage = stage;
  run.scenario.batch_per_rank.clear();
  const int batch = run.scenario.global_batch_size;
  const auto profiles = plan::profile_gpu_types(run, batch);

  // Whole cluster: the best `candidates` plans by predicted time, simulated with communication.
  const auto plans = analysis::plan_batch(profiles, batch);
  for (std::size_t i = 0; i < plans.size() && static_cast<int>(i) < candidates; ++i) {
    std::optional<Evaluated> e = simulate(run, plans[i], "plan", stage);
    if (better(e, result.plan))
      result.plan = std::move(e);
  }
  const auto uniform = analysis::uniform_plan(profiles, batch);
  if (!uniform.shares.empty()) {
    result.uniform = simulate(run, uniform, "uniform", stage);
    // The uniform allocation is a candidate too: the plan is never worse than what DeepSpeed does.
    if (better(result.uniform, result.plan))
      result.plan = relabelled(*result.uniform, stage, "plan");
  }

  // Subsets leaving the slowest types out (types ordered by seconds per sample at their largest micro-batch),
  // down to the fastest alone, and every type alone (homogeneous subsets).
  std::vector<std::string> by_speed;
  for (const auto& p : profiles)
    if (p.max_micro_batch > 0)
      by_speed.push_back(p.name);
  auto per_sample = [&](const std::string& name) {
    const auto& p = *std::find_if(profiles.begin(), profiles.end(), [&](const auto& q) { return q.name == name; });
    return p.micro_batch_time_s.back() / p.max_micro_batch;
  };
  std::sort(by_speed.begin(), by_speed.end(),
            [&](const std::string& a, const std::string& b) { return per_sample(a) < per_sample(b); });
  std::vector<std::vector<std::string>> subsets;
  for (std::size_t k = 2; k < by_speed.size(); ++k)
    subsets.emplace_back(by_speed.begin(), by_speed.begin() + static_cast<std::ptrdiff_t>(k));
  if (profiles.size() > 1)
    for (const auto& name : by_speed)
      subsets.push_back({name});
  for (const auto& types : subsets) {
    const auto sub = plan::restrict_to_types(run, types);
    const auto sub_plans = analysis::plan_batch(plan::profile_gpu_types(sub, batch), batch);
    if (sub_plans.empty())
      continue;
    std::optional<Evaluated> e = simulate(sub, sub_plans.front(), types.size() == 1 ? "subset" : "plan", stage);
    if (types.size() == 1 && better(e, result.subset))
      result.subset = e;
    if (better(e, result.plan))
      result.plan = relabelled(*e, stage, "plan");
  }
  return result;
}

std::string minutes(const Evaluated& e)
{
  return e.outcome.time_to_train ? fmt::format("{:.2f}", e.outcome.record.time_to_train_min) : "-";
}

void print_row(const std::optional<Evaluated>& e, const std::string& label, int stage,
               const std::optional<Evaluated>& uniform)
{
  if (!e) {
    fmt::print("{:>5}  {:<8} {:>10} {:>9} {:>8}  {}\n", stage, label, "-", "-", "-", "no allocation fits");
    return;
  }
  if (!e->ok()) {
    fmt::print("{:>5}  {:<8} {:>10} {:>9} {:>8}  {} ({})\n", stage, label, "infeasible", "-", "-", describe(e->plan),
               e->outcome.record.infeasible_reason);
    return;
  }
  const std::string speedup =
      uniform && uniform->ok() ? fmt::format("{:.2f}x", uniform->iter_time_s() / e->iter_time_s()) : "-";
  fmt::print("{:>5}  {:<8} {:>10.4f} {:>9} {:>8}  {}\n", stage, label, e->iter_time_s(), minutes(*e), speedup,
             describe(e->plan));
}

void plan(const PlanOptions& options)
{
  const auto started = std::chrono::steady_clock::now();
  const model::ResolvedScenario resolved = config::read_scenario(options.scenario_path);
  config::Diagnostics ignored;
  const std::string scenario_text = config::read_text_file(options.scenario_path, ignored).value_or("");
  std::vector<std::string> inputs = config::scenario_input_files(resolved.scenario, &resolved.platform);
  inputs.push_back(options.scenario_path);
  const std::string output = options.output_path.empty() ? "" : checked_results_path(options.output_path, inputs);
  std::vector<int> stages{resolved.scenario.zero_stage};
  if (options.all_stages)
    stages = {0, 1, 2, 3};

  fmt::print("scenario   {} ({} GPUs of {}, global batch {})\n", resolved.scenario.name, resolved.scenario.gpus,
             resolved.platform.name, resolved.scenario.global_batch_size);
  for (const auto& [name, count] : plan::gpu_types_of_run(resolved))
    fmt::print("gpu type   {} x {}\n", count, name);
  fmt::print("\n{:>5}  {:<8} {:>10} {:>9} {:>8}  {}\n", "zero", "alloc", "iter [s]", "TTT [min]", "vs unif.",
             "allocation (m = micro-batch, g = accumulation)");
  std::vector<StageResult> results;
  for (int stage : stages) {
    results.push_back(evaluate_stage(resolved, stage, options.candidates));
    const auto& r = results.back();
    print_row(r.plan, "plan", stage, r.uniform);
    print_row(r.uniform, "uniform", stage, r.uniform);
    print_row(r.subset, "subset", stage, r.uniform);
  }
  const StageResult* chosen = nullptr;
  for (const auto& r : results)
    if (r.plan && r.plan->ok() && (!chosen || r.plan->iter_time_s() < chosen->plan->iter_time_s()))
      chosen = &r;
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!chosen) {
    fmt::print("\nno feasible plan\n");
  } else {
    const auto& best = *chosen->plan;
    fmt::print("\nchosen     ZeRO-{}: {} -> {:.4f} s per iteration", chosen->stage, describe(best.plan),
               best.iter_time_s());
    if (best.outcome.time_to_train)
      fmt::print(", time to train {:.2f} min", best.outcome.record.time_to_train_min);
    fmt::print("\n\n# paste into the scenario (zero_stage: {}, gpus: {}):\n{}", chosen->stage,
               best.outcome.record.gpus, plan::batch_allocation_yaml(best.plan));
  }
  fmt::print("\nplanned in {:.1f} s\n", elapsed_s);
  if (!options.output_path.empty()) {
    std::vector<results::RunToWrite> rows;
    for (const auto& r : results)
      for (const auto* e : {&r.plan, &r.uniform, &r.subset})
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
      "plan", "Search the per-GPU-type batch allocation (micro-batch, accumulation) that minimises iteration time");
  command->add_option("scenario", options->scenario_path, "Scenario YAML file (platform, workload, global batch, ZeRO stage)")
      ->required();
  command->add_option("-o,--output", options->output_path, "HDF5 results file to append the plan, uniform, subset rows to");
  command->add_flag("--all-stages", options->all_stages, "Plan for every ZeRO stage 0-3, not only the scenario's");
  command->add_option("--candidates", options->candidates, "Best predicted plans of the whole cluster simulated in full")
      ->check(CLI::Range(1, 64));
  add_catalog_option(*command);
  command->callback([options] { plan(*options); });
}

} // namespace gpuscale::app
