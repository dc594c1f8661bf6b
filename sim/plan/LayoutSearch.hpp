#pragma once
/// The layout search of `gpuscale plan` (docs/HETEROGENEITY.md, "The layout search"): for one ZeRO
/// stage, the per-GPU-type batch split of Poplar (BatchProfiler + analysis::plan_batch) at the
/// scenario's own layout, and then every layout of
///
///   tp        1, 2, 4, ... up to the GPUs of a node        where the workload has tensor-parallel layers
///   cp        1, 2, 4, 8                                   where it has context-parallel attention
///   checkpointing   off; every block; the fewest blocks that fit     where it has checkpoint blocks
///   cuda_graph      the scenario's, off where the stage cannot be captured
///
/// on the whole cluster and on each GPU type alone. tp x cp > 1 needs one micro-batch on every GPU
/// (an uneven allocation is pure data parallelism) and model-parallel groups of one GPU type. Every
/// candidate is resolved as `gpuscale run` resolves it (config::ScenarioVariants) and skipped with its
/// conflict if run would refuse it; one whose micro-batch 1 does not fit in memory is skipped unsimulated;
/// tp stops growing once a larger tp is slower than the smaller one, and cp likewise.

#include "analysis/planner/BatchPlanner.hpp"
#include "sim/config/ScenarioVariants.hpp"
#include "sim/run/ScenarioRunner.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpuscale::plan {

/// One simulated candidate: a layout, a batch split, the scenario it makes (resolved as run resolves
/// it) and its outcome.
struct Candidate {
  std::string label; ///< the results row: plan | uniform | subset | layout
  analysis::BatchPlan split;
  model::ResolvedScenario scenario; ///< named "<scenario>/zero<stage>-<label>"
  run::ScenarioOutcome outcome;
  bool ok() const { return outcome.iteration.has_value(); }
  double iter_time_s() const { return ok() ? outcome.record.iter_time_s : 0; }
};

/// Simulated and faster than `best` (by iteration time, or by time to train when `by_time_to_train`).
bool better(const std::optional<Candidate>& candidate, const std::optional<Candidate>& best,
            bool by_time_to_train = false);

/// "tp 4, cp 1, sequence parallel, 72 of 80 blocks recomputed, cuda graph": the layout of `s`.
std::string describe_layout(const model::Scenario& s, const model::WorkloadTrace& workload);
/// "16x a100-sxm4-80gb m=5 g=2, ...": the batch split.
std::string describe_split(const analysis::BatchPlan& split);

/// What the search found for one stage.
struct StageSearch {
  int stage = 0;
  /// Poplar at the scenario's own layout: the best planned split (whole cluster or a subset), DeepSpeed's
  /// uniform one, and the best homogeneous subset.
  std::optional<Candidate> plan, uniform, subset;
  /// The best of every other layout searched (absent when none is faster than `plan` or none runs).
  std::optional<Candidate> layout;
  std::vector<std::string> tried; ///< one line per layout searched: its best time or why it was skipped
  /// The fastest of plan and layout.
  const std::optional<Candidate>& best() const { return better(layout, plan) ? layout : plan; }
};

class LayoutSearch {
public:
  /// `candidates`: the best predicted splits of the whole cluster simulated in full per layout.
  LayoutSearch(const config::ScenarioVariants& variants, int candidates);

  /// The search at ZeRO `stage` and `global_batch` samples per step.
  StageSearch search_stage(int stage, int global_batch) const;

private:
  std::optional<Candidate> simulate(const model::ResolvedScenario& layout, const analysis::BatchPlan& split,
                                    const std::string& label, int stage) const;
  std::optional<model::ResolvedScenario> layout_on(const model::Scenario& s, const model::Platform& platform,
                                                   std::string& reason) const;
  void search_poplar(const model::Scenario& s, StageSearch& result) const;
  std::optional<Candidate> best_on_clusters(const model::Scenario& s, int stage, std::string& note) const;

  const config::ScenarioVariants& variants_;
  int candidates_ = 1;
};

} // namespace gpuscale::plan
