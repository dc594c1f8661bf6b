#pragma once
/// Simulates one optimizer step of a scenario and reports what it took: prepares the step
/// (StepSetup), runs it on the scenario's executor (SimGrid or analytical, see StepTrace.hpp) and
/// summarises the slowest GPU. SimGrid's engine is one per process: with the SimGrid executor call
/// simulate_iteration at most once per process (simulate_iteration_isolated forks for callers that
/// need more); the analytical executor may run any number of times.

#include "sim/engine/StepTrace.hpp"
#include "sim/model/Scenario.hpp"

#include <string>

namespace gpuscale::engine {

struct IterationResult {
  int gpus = 0;
  std::string collective_used;      ///< data-parallel algorithm for gradient buckets ("auto" resolved)
  std::string simgrid_config;       ///< --cfg items applied
  std::string step_simulation;      ///< how much of the step was simulated (SteadyStateReport::describe)
  std::string symmetry;             ///< whether the GPUs were folded onto one block (SymmetryFold::describe)
  double iteration_time_s = 0;      ///< slowest GPU, start to end of optimizer step
  double compute_time_s = 0;        ///< slowest GPU's busy time (kernels + optimizer)
  double host_time_s = 0;           ///< largest host time on a GPU's critical path (StepProgram::host_s), in compute_time_s
  double comm_time_s = 0;           ///< longest time one GPU's communication streams were busy, summed over streams
  double exposed_comm_s = 0;        ///< largest time a GPU waited on communication (step time - busy time)
  double bytes_sent_per_gpu = 0;    ///< largest bytes one GPU sent in all collectives
  double dp_bytes_sent_per_gpu = 0; ///< largest bytes one GPU sent in data-parallel collectives
  double pipeline_bytes_sent_per_gpu = 0; ///< largest bytes one GPU sent to pipeline neighbours
  /// Largest time a GPU waited in its pipeline exchanges: the bubble (waiting for the neighbours'
  /// passes) and the transfers themselves. In exposed_comm_s.
  double pipeline_wait_s = 0;
  double samples_per_s = 0;
};

/// The executor of `kind`.
StepExecutor executor_for(model::StepExecutorKind kind);

/// Runs the simulation in this process, on the scenario's executor or on `executor`.
IterationResult simulate_iteration(const model::ResolvedScenario& scenario);
IterationResult simulate_iteration(const model::ResolvedScenario& scenario, model::StepExecutorKind executor);

/// Same, in a forked child process where the executor is SimGrid, so a process can run several
/// simulations (tests, sweeps); in this process for the analytical executor.
IterationResult simulate_iteration_isolated(const model::ResolvedScenario& scenario);
IterationResult simulate_iteration_isolated(const model::ResolvedScenario& scenario, model::StepExecutorKind executor);

} // namespace gpuscale::engine
