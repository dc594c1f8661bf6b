#pragma once
/// Runs one resolved scenario end to end: memory check first (a run that does not fit is an
/// infeasible outcome, not a simulation), then the SimGrid simulation, then one RunRecord.

#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/MemoryModel.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/TimeToTrain.hpp"
#include "sim/results/RunRecord.hpp"

#include <optional>

namespace gpuscale::app {

struct ScenarioOutcome {
  results::RunRecord record;
  engine::MemoryEstimate memory; ///< of the GPU type with the least headroom
  std::string tightest_gpu;
  std::optional<engine::IterationResult> iteration; ///< absent when infeasible
  std::optional<model::HostInputLoad> host;         ///< the node type whose host CPUs are most loaded
  std::optional<model::TimeToTrain> time_to_train;  ///< with a convergence table
};

/// The memory estimate of the GPU type with the least headroom among those the first
/// `scenario.gpus` GPUs of `platform` use (the largest micro-batch each type runs).
struct TightestMemory {
  engine::MemoryEstimate memory;
  std::string gpu;
};
TightestMemory tightest_memory(const model::Platform& platform, const model::WorkloadTrace& workload,
                               const model::Scenario& scenario, model::Precision precision);

/// `isolated`: run the simulation in a child process (needed when the caller runs several).
ScenarioOutcome run_scenario(const model::ResolvedScenario& scenario, bool isolated);

} // namespace gpuscale::app
