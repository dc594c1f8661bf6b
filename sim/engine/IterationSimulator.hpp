#pragma once
/// Simulates one optimizer step of a scenario on SimGrid and reports what it took.
/// SimGrid's engine is one per process: call simulate_iteration at most once per process
/// (simulate_iteration_isolated forks for callers that need more).

#include "sim/engine/MemoryModel.hpp"
#include "sim/model/Scenario.hpp"

#include <string>

namespace gpuscale::engine {

struct IterationResult {
  int gpus = 0;
  std::string collective_used;   ///< the algorithm actually run ("auto" resolved)
  std::string simgrid_config;    ///< --cfg items applied
  double iteration_time_s = 0;   ///< slowest GPU, start to end of optimizer step
  double compute_time_s = 0;     ///< slowest GPU's kernel time
  double comm_time_s = 0;        ///< longest time a GPU's communication stream was busy
  double exposed_comm_s = 0;     ///< longest wait for communication after backward ended
  double bytes_sent_per_gpu = 0; ///< largest bytes sent by one GPU in collectives
  double samples_per_s = 0;
};

/// Resolves `auto`: the per-step ring (exact, O(p²) communications) up to 64 GPUs, the flow-level
/// ring beyond, where the per-step form costs seconds to minutes of simulation (SIMGRID-NOTES).
model::CollectiveAlgorithm resolve_collective(model::CollectiveAlgorithm requested, int gpus);

/// Runs the simulation in this process. Throws std::runtime_error for scenarios the engine cannot
/// simulate (ZeRO stage > 0 until its schedules exist).
IterationResult simulate_iteration(const model::ResolvedScenario& scenario);

/// Same, in a forked child process, so a process can run several simulations (tests, sweeps).
IterationResult simulate_iteration_isolated(const model::ResolvedScenario& scenario);

} // namespace gpuscale::engine
