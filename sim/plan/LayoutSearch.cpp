#include "sim/plan/LayoutSearch.hpp"

#include "sim/model/PipelineSchedule.hpp"

#include "sim/engine/MemoryModel.hpp"
#include "sim/model/Recomputation.hpp"
#include "sim/plan/BatchProfiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace gpuscale::plan {
namespace {

/// When a parallel degree stops growing: once a larger degree's best is slower than the smaller one's.
class GrowthStop {
public:
  /// Records `best`, the best at this degree; true when it is slower than the previous degree's best.
  bool slower(const std::optional<Candidate>& best)
  {
    const bool out = best && previous_s_ && best->iter_time_s() > *previous_s_;
    if (best)
      previous_s_ = best->iter_time_s();
    return out;
  }

private:
  std::optional<double> previous_s_;
};

/// What activation checkpointing a layout asks for.
enum class Checkpointing { Off, Every, Fewest };

/// A part of the cluster the search places the job on: the whole of it, or one GPU type alone.
struct Cluster {
  model::Platform platform;
  int gpus = 0;
};

/// The whole cluster, then each GPU type alone (node groups of the others removed) when it has several.
std::vector<Cluster> clusters_of(const model::ResolvedScenario& base)
{
  std::vector<Cluster> clusters{{base.platform, base.scenario.gpus}};
  const auto types = gpu_types_of_run(base);
  if (types.size() > 1)
    for (const auto& [type, count] : types) {
      model::ResolvedScenario alone = restrict_to_types(base, {type});
      alone.platform.name = base.platform.name + "-" + type;
      clusters.push_back({alone.platform, alone.scenario.gpus});
    }
  return clusters;
}

std::vector<std::string> types_on(const model::Platform& platform, int gpus)
{
  std::vector<std::string> types;
  for (const auto& use : platform.groups_used(gpus)) {
    const std::string& type = platform.node_type_of_group(use.group).gpu_type;
    if (std::find(types.begin(), types.end(), type) == types.end())
      types.push_back(type);
  }
  return types;
}

/// Every GPU of `gpus` GPUs of `platform` holds micro-batches of one sample under `s`.
bool fits_one_sample(const model::Scenario& s, const model::WorkloadTrace& workload, const model::Platform& platform)
{
  const model::Precision precision = s.precision.value_or(workload.precision);
  for (const auto& type : types_on(platform, s.gpus))
    if (!engine::estimate_memory(workload, s, platform.gpu_types.at(type), precision, s.data_parallel(), 1).fits())
      return false;
  return true;
}

/// Sets the fewest recomputed checkpoint blocks with which one sample fits everywhere (memory does not
/// grow with the blocks recomputed: bisection), as NeMo's block checkpointing is tuned. False when none
/// is needed (then it is the Off layout) or even every block does not fit.
bool set_fewest_blocks(model::Scenario& s, const model::WorkloadTrace& workload, const model::Platform& platform)
{
  const bool fits = model::recompute_fewest_blocks(
      s, workload, [&](const model::Scenario& c) { return fits_one_sample(c, workload, platform); });
  // Neither none nor every block: those are the Off and Every layouts.
  return fits && s.activation_checkpointing && s.activation_checkpointing_blocks.has_value();
}

/// One micro-batch size on every GPU, for model-parallel layouts: `global_batch` over `data_parallel`
/// replicas, the micro-batch that fits every type with the least predicted step (ties: the larger).
analysis::BatchPlan replica_split(const std::vector<analysis::GpuTypeProfile>& profiles, int global_batch,
                                  int data_parallel)
{
  analysis::BatchPlan best;
  if (data_parallel <= 0 || global_batch % data_parallel != 0)
    return best;
  const int per_replica = global_batch / data_parallel;
  int largest = per_replica;
  for (const auto& p : profiles)
    largest = std::min(largest, p.max_micro_batch);
  double best_s = std::numeric_limits<double>::infinity();
  for (int m = 1; m <= largest; ++m) {
    if (per_replica % m != 0)
      continue;
    const int g = per_replica / m;
    double step_s = 0;
    for (const auto& p : profiles)
      step_s = std::max(step_s, p.step_time_s(m, g));
    if (step_s <= best_s * (1 + 1e-9)) {
      best_s = step_s;
      best = {};
      best.accumulation = g;
      best.predicted_time_s = step_s;
      for (const auto& p : profiles)
        best.shares.push_back({p.name, p.gpus, m, g});
    }
  }
  return best;
}

std::string minutes_or_seconds(const Candidate& c)
{
  std::string text = fmt::format("{:.4f} s", c.iter_time_s());
  if (c.outcome.time_to_train)
    text += fmt::format(", {:.2f} min", c.outcome.record.time_to_train_min);
  return text;
}

Candidate relabelled(Candidate c, int stage, const std::string& base_name, const std::string& label)
{
  c.label = label;
  c.scenario.scenario.name = fmt::format("{}/zero{}-{}", base_name, stage, label);
  c.outcome.record.scenario = c.scenario.scenario.name;
  return c;
}

} // namespace

bool better(const std::optional<Candidate>& candidate, const std::optional<Candidate>& best, bool by_time_to_train)
{
  if (!candidate || !candidate->ok())
    return false;
  if (!best || !best->ok())
    return true;
  if (by_time_to_train && candidate->outcome.time_to_train && best->outcome.time_to_train)
    return candidate->outcome.record.time_to_train_min < best->outcome.record.time_to_train_min;
  return candidate->iter_time_s() < best->iter_time_s();
}

std::string describe_layout(const model::Scenario& s, const model::WorkloadTrace& workload)
{
  std::string text = fmt::format("tp {}, cp {}", s.tensor_parallel, s.context_parallel);
  if (s.pipeline_parallel > 1)
    text += s.virtual_pipeline > 1 ? fmt::format(", pp {} ({} chunks per stage)", s.pipeline_parallel, s.virtual_pipeline)
                                   : fmt::format(", pp {}", s.pipeline_parallel);
  if (s.sequence_parallel)
    text += ", sequence parallel";
  const int blocks = model::checkpoint_block_count(workload);
  const int recomputed = model::recomputed_block_count(workload, s);
  if (s.activation_checkpointing)
    text += recomputed < blocks ? fmt::format(", {} of {} blocks recomputed", recomputed, blocks)
                                : std::string(", every block recomputed");
  else if (blocks > 0)
    text += ", no recomputation";
  text += s.cuda_graph ? ", cuda graph" : ", eager";
  return text;
}

std::string describe_split(const analysis::BatchPlan& split)
{
  std::string text;
  for (const auto& share : split.shares)
    text += fmt::format("{}{}x {} m={} g={}", text.empty() ? "" : ", ", share.gpus, share.gpu_type, share.micro_batch,
                        share.accumulation);
  return text;
}

LayoutSearch::LayoutSearch(const config::ScenarioVariants& variants, int candidates)
    : variants_(variants), candidates_(candidates)
{
}

std::optional<model::ResolvedScenario> LayoutSearch::layout_on(const model::Scenario& s,
                                                               const model::Platform& platform,
                                                               std::string& reason) const
{
  // One sample per micro-batch: the batch split comes later, every other conflict rules the layout out.
  model::Scenario probe = s;
  probe.batch_allocation.clear();
  probe.micro_batch_size = 1;
  config::ResolvedVariant v = variants_.resolve(probe, platform);
  for (const auto& conflict : v.conflicts)
    if (conflict.kind != model::ScenarioConflict::Kind::BatchSize) {
      reason = conflict.field + ": " + conflict.message;
      return std::nullopt;
    }
  return std::move(v.resolved);
}

std::optional<Candidate> LayoutSearch::simulate(const model::ResolvedScenario& layout, const analysis::BatchPlan& split,
                                                const std::string& label, int stage) const
{
  if (split.shares.empty())
    return std::nullopt;
  model::Scenario s = layout.scenario;
  s.name = fmt::format("{}/zero{}-{}", variants_.base().scenario.name, stage, label);
  s.batch_allocation.clear();
  int largest = 0;
  bool uniform = true;
  for (const auto& share : split.shares) {
    largest = std::max(largest, share.micro_batch);
    uniform = uniform && share.micro_batch == split.shares.front().micro_batch;
  }
  s.micro_batch_size = largest;
  // As written in a scenario file: batch_allocation, which resolution expands to the ranks.
  if (!uniform)
    for (const auto& share : split.shares)
      s.batch_allocation.push_back({share.gpu_type, share.gpus, share.micro_batch, share.accumulation});
  config::ResolvedVariant v = variants_.resolve(std::move(s), layout.platform);
  Candidate c;
  c.label = label;
  c.split = split;
  c.scenario = std::move(v.resolved);
  if (!v.ok()) {
    c.outcome.record.scenario = c.scenario.scenario.name;
    c.outcome.record.infeasible_reason = v.conflicts.front().field + ": " + v.conflicts.front().message;
    return c;
  }
  c.outcome = run::run_scenario(c.scenario, true);
  return c;
}

void LayoutSearch::search_poplar(const model::Scenario& s, StageSearch& result) const
{
  const int stage = result.stage;
  const model::ResolvedScenario& base = variants_.base();
  std::string reason;
  const auto run = layout_on(s, base.platform, reason);
  if (!run) {
    result.tried.push_back("the scenario's layout: " + reason);
    return;
  }
  const int batch = s.global_batch_size;
  const auto profiles = profile_gpu_types(*run, batch);

  // Whole cluster: the best `candidates` plans by predicted time, simulated with communication.
  const auto plans = analysis::plan_batch(profiles, batch);
  for (std::size_t i = 0; i < plans.size() && static_cast<int>(i) < candidates_; ++i) {
    std::optional<Candidate> e = simulate(*run, plans[i], "plan", stage);
    if (better(e, result.plan))
      result.plan = std::move(e);
  }
  const auto uniform = analysis::uniform_plan(profiles, batch);
  if (!uniform.shares.empty()) {
    result.uniform = simulate(*run, uniform, "uniform", stage);
    // The uniform allocation is a candidate too: the plan is never worse than what DeepSpeed does.
    if (better(result.uniform, result.plan))
      result.plan = relabelled(*result.uniform, stage, base.scenario.name, "plan");
  }

  // Subsets leaving the slowest types out (types ordered by seconds per sample at their largest
  // micro-batch), down to the fastest alone, and every type alone (homogeneous subsets).
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
    model::ResolvedScenario sub = restrict_to_types(*run, types);
    std::string subset_name = base.platform.name;
    for (const auto& type : types)
      subset_name += "-" + type;
    sub.platform.name = subset_name;
    model::Scenario on_subset = s;
    on_subset.gpus = sub.scenario.gpus;
    const auto sub_run = layout_on(on_subset, sub.platform, reason);
    if (!sub_run)
      continue;
    const auto sub_plans = analysis::plan_batch(profile_gpu_types(*sub_run, batch), batch);
    if (sub_plans.empty())
      continue;
    std::optional<Candidate> e = simulate(*sub_run, sub_plans.front(), types.size() == 1 ? "subset" : "plan", stage);
    if (types.size() == 1 && better(e, result.subset))
      result.subset = e;
    if (better(e, result.plan))
      result.plan = relabelled(*e, stage, base.scenario.name, "plan");
  }
}

std::optional<Candidate> LayoutSearch::best_on_clusters(const model::Scenario& s, int stage, std::string& note) const
{
  const model::ResolvedScenario& base = variants_.base();
  const int model_parallel = s.model_parallel();
  std::optional<Candidate> best;
  std::vector<std::string> skipped;
  for (const Cluster& cluster : clusters_of(base)) {
    const auto types = types_on(cluster.platform, cluster.gpus);
    // A model-parallel group runs at its slowest member's pace and holds what its smallest one holds:
    // groups are kept to one GPU type (nodes are homogeneous, so whole node groups of a type).
    bool one_type_groups = true;
    if (types.size() > 1)
      for (const auto& use : cluster.platform.groups_used(cluster.gpus))
        one_type_groups = one_type_groups && use.gpus % model_parallel == 0;
    if (!one_type_groups)
      continue;
    model::Scenario c = s;
    c.gpus = cluster.gpus;
    if (c.activation_checkpointing_blocks && !set_fewest_blocks(c, base.workload, cluster.platform))
      continue; // the fewest-blocks layout is the same as no or every block recomputed here
    std::string reason;
    const auto run = layout_on(c, cluster.platform, reason);
    if (!run) {
      skipped.push_back(reason);
      continue;
    }
    const int batch = c.global_batch_size;
    const auto profiles = profile_gpu_types(*run, model_parallel == 1 ? batch : std::max(1, batch / c.data_parallel()));
    if (std::any_of(profiles.begin(), profiles.end(), [](const auto& p) { return p.max_micro_batch == 0; })) {
      skipped.push_back("one sample per micro-batch does not fit in memory");
      continue;
    }
    std::vector<analysis::BatchPlan> splits;
    if (model_parallel == 1) {
      auto plans = analysis::plan_batch(profiles, batch);
      if (plans.size() > static_cast<std::size_t>(candidates_))
        plans.resize(static_cast<std::size_t>(candidates_));
      splits = std::move(plans);
    } else {
      splits.push_back(replica_split(profiles, batch, c.data_parallel()));
    }
    for (const auto& split : splits) {
      std::optional<Candidate> e = simulate(*run, split, "layout", stage);
      if (e && !e->ok())
        skipped.push_back(e->outcome.record.infeasible_reason);
      if (better(e, best))
        best = std::move(e);
    }
  }
  if (best)
    note = fmt::format("{}: {} ({})", describe_layout(best->scenario.scenario, base.workload), minutes_or_seconds(*best),
                       describe_split(best->split));
  else if (!skipped.empty())
    note = fmt::format("{}: skipped, {}", describe_layout(s, base.workload), skipped.front());
  return best;
}

StageSearch LayoutSearch::search_stage(int stage, int global_batch) const
{
  const model::ResolvedScenario& base = variants_.base();
  StageSearch result;
  result.stage = stage;
  model::Scenario s = base.scenario;
  s.zero_stage = stage;
  s.global_batch_size = global_batch;
  s.batch_allocation.clear();
  s.batch_per_rank.clear();
  // The scenario's CUDA graphs, where the stage's step can be captured (run refuses the others).
  s.cuda_graph = s.cuda_graph && model::allows_cuda_graph(model::zero_stage_of(stage));
  search_poplar(s, result);

  const model::WorkloadTrace& workload = base.workload;
  const bool tp_layers = std::any_of(workload.layers.begin(), workload.layers.end(),
                                     [](const model::Layer& l) { return l.tp_sharded(); });
  const bool cp_layers = std::any_of(workload.layers.begin(), workload.layers.end(),
                                     [](const model::Layer& l) { return l.cp_comm_bytes_per_sample > 0; });
  int per_node = std::numeric_limits<int>::max();
  for (std::size_t g = 0; g < base.platform.node_groups.size(); ++g)
    per_node = std::min(per_node, base.platform.node_type_of_group(g).gpus_per_node);
  std::vector<int> tps{1}, cps{1}, pps{1};
  for (int tp = 2; tp_layers && tp <= per_node; tp *= 2)
    tps.push_back(tp);
  for (int cp = 2; cp_layers && cp <= 8; cp *= 2)
    cps.push_back(cp);
  // Pipeline stages where the trace has blocks to cut and the stage allows it (ZeRO-0/1), doubling
  // up to one block per stage; the scenario's own depth and chunks per stage are kept.
  const int blocks = static_cast<int>(model::pipeline_units(workload).size());
  if (stage <= 1 && model::pipeline_activation_bytes_per_sample(workload) > 0)
    for (int pp = 2; pp <= blocks; pp *= 2)
      pps.push_back(pp);
  if (s.pipeline_parallel > 1 && std::find(pps.begin(), pps.end(), s.pipeline_parallel) == pps.end()) {
    pps.push_back(s.pipeline_parallel);
    std::sort(pps.begin(), pps.end());
  }
  std::vector<Checkpointing> checkpointing{Checkpointing::Off};
  if (model::checkpoint_block_count(workload) > 0)
    checkpointing = {Checkpointing::Off, Checkpointing::Fewest, Checkpointing::Every};

  GrowthStop tp_growth;
  for (int tp : tps) {
    std::optional<Candidate> best_tp;
    GrowthStop cp_growth;
    for (int cp : cps) {
      if (tp * cp > s.gpus)
        break;
      std::optional<Candidate> best_cp;
      GrowthStop pp_growth;
      for (int pp : pps) {
        if (tp * cp * pp > s.gpus)
          break;
        std::optional<Candidate> best_pp;
        for (Checkpointing mode : checkpointing) {
          model::Scenario layout = s;
          layout.tensor_parallel = tp;
          layout.context_parallel = cp;
          layout.pipeline_parallel = pp;
          layout.virtual_pipeline = pp == s.pipeline_parallel ? s.virtual_pipeline : 1;
          // Megatron runs tensor parallelism with sequence parallelism (activations / tp); nothing to split at tp 1.
          layout.sequence_parallel = tp == s.tensor_parallel ? s.sequence_parallel : tp > 1;
          layout.tp_comm_overlap = s.tp_comm_overlap && layout.sequence_parallel;
          layout.activation_checkpointing = mode != Checkpointing::Off;
          layout.activation_checkpointing_blocks.reset();
          if (mode == Checkpointing::Fewest)
            layout.activation_checkpointing_blocks = 0; // set per cluster (best_on_clusters)
          const bool scenario_layout = tp == s.tensor_parallel && cp == s.context_parallel && pp == s.pipeline_parallel &&
                                       layout.sequence_parallel == s.sequence_parallel && mode != Checkpointing::Fewest &&
                                       layout.activation_checkpointing == s.activation_checkpointing &&
                                       !s.activation_checkpointing_blocks;
          if (scenario_layout && tp * cp * pp == 1)
            continue; // the Poplar rows above
          std::string note;
          std::optional<Candidate> e = best_on_clusters(layout, stage, note);
          if (!note.empty())
            result.tried.push_back(note);
          if (better(e, best_pp))
            best_pp = std::move(e);
        }
        const bool slower_pp = pp_growth.slower(best_pp);
        if (better(best_pp, best_cp))
          best_cp = std::move(best_pp);
        if (slower_pp)
          break; // deeper pipelines: a larger bubble once the model fits
      }
      const bool slower = cp_growth.slower(best_cp);
      if (better(best_cp, best_tp))
        best_tp = std::move(best_cp);
      if (slower)
        break; // more context parallelism: more communication, no less memory that pays
    }
    const bool slower = tp_growth.slower(best_tp);
    if (better(best_tp, result.layout))
      result.layout = std::move(best_tp);
    if (slower)
      break;
  }
  if (result.layout && !better(result.layout, result.plan))
    result.layout.reset();
  return result;
}

} // namespace gpuscale::plan
