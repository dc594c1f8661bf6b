#pragma once
/// Runs one resolved scenario end to end: memory check first (a run that does not fit is an
/// infeasible outcome, not a simulation), then the SimGrid simulation, then one RunRecord.

#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/MemoryModel.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/TimeToTrain.hpp"
#include "sim/results/RunRecord.hpp"
#include "sim/uncertainty/ResultUncertainty.hpp"

#include <optional>
#include <string>

namespace gpuscale::run {

struct ScenarioOutcome {
  results::RunRecord record;
  engine::MemoryEstimate memory; ///< of the GPU type with the least headroom
  std::string tightest_gpu;
  std::optional<engine::IterationResult> iteration; ///< absent when infeasible
  std::optional<model::HostInputLoad> host;         ///< the node type whose host CPUs are most loaded
  std::optional<model::TimeToTrain> time_to_train;  ///< with a convergence table
  /// What the record's interval columns rest on (resolved.calibration's errors); absent with the
  /// reason in no_interval_reason.
  std::optional<uncertainty::ResultUncertainty> uncertainty;
  std::string no_interval_reason;
};

/// The memory estimate of the GPU type with the least headroom among those the first
/// `scenario.gpus` GPUs of `platform` use (the largest micro-batch each type runs).
struct TightestMemory {
  engine::MemoryEstimate memory;
  std::string gpu;
};
TightestMemory tightest_memory(const model::Platform& platform, const model::WorkloadTrace& workload,
                               const model::Scenario& scenario, model::Precision precision);

/// Most accelerators one simulation takes. The SimGrid simulation holds one actor (with its own stack
/// mapping) and its routes per accelerator and grows faster than linearly: measured with
/// /usr/bin/time -v on `predict` of DGX B200 clusters for BERT, 4,096 accelerators take 12 s and
/// 0.32 GB, 8,192 take 29 s and 0.85 GB, and 16,384 exceed the process's memory mappings (SimGrid
/// aborts). Larger requests are refused before anything is built.
inline constexpr int kMaxSimulatedAccelerators = 8192;

/// Throws std::invalid_argument (exit 2) naming the limit when `accelerators` exceeds it.
void check_simulation_size(int accelerators, const std::string& what);

/// `isolated`: run the simulation in a child process (needed when the caller runs several).
ScenarioOutcome run_scenario(const model::ResolvedScenario& scenario, bool isolated);

} // namespace gpuscale::run
