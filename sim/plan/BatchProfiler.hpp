#pragma once
/// Profiles what the batch planner needs about each GPU type of a (sub)cluster: the largest
/// micro-batch that fits its memory (engine::estimate_memory) and its seconds per micro-batch versus
/// micro-batch size, measured on the engine's own step program (the kernels and optimizer step one
/// GPU of that type executes in the simulation, build_step_program) at a geometric grid of sizes and
/// fitted with analysis::MicroBatchCurve.

#include "analysis/planner/BatchPlanner.hpp"
#include "sim/model/Scenario.hpp"

#include <string>
#include <vector>

namespace gpuscale::plan {

/// The GPU types of `resolved`'s first scenario.gpus GPUs with their counts, in node-group order.
std::vector<std::pair<std::string, int>> gpu_types_of_run(const model::ResolvedScenario& resolved);

/// The same run restricted to the GPUs of `types` (node groups of other types removed, gpus reduced).
model::ResolvedScenario restrict_to_types(const model::ResolvedScenario& resolved,
                                          const std::vector<std::string>& types);

/// One profile per GPU type of `resolved` (its zero_stage and data-parallel degree decide memory and
/// the optimizer shard), micro-batches probed up to `max_probe` at most.
std::vector<analysis::GpuTypeProfile> profile_gpu_types(const model::ResolvedScenario& resolved, int max_probe);

/// `resolved` running `plan` (uniform when every share has the same micro-batch, else batch_per_rank).
model::ResolvedScenario apply_plan(const model::ResolvedScenario& resolved, const analysis::BatchPlan& plan,
                                   const std::string& name_suffix);

} // namespace gpuscale::plan
