#pragma once
/// Runs many resolved scenarios end to end (ScenarioRunner), `workers` at a time, each in its own
/// forked process (SimGrid: one engine per process), and returns their records in input order.

#include "sim/model/Scenario.hpp"
#include "sim/results/RunRecord.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::run {

struct ParallelRun {
  std::optional<results::RunRecord> record; ///< absent when the simulation failed
  std::string error;                        ///< what went wrong otherwise
  double wall_s = 0;                        ///< wall-clock seconds of the simulation process
};

/// `progress(done, total)` is called after each run finishes.
std::vector<ParallelRun> run_scenarios_parallel(const std::vector<model::ResolvedScenario>& scenarios, int workers,
                                                const std::function<void(std::size_t, std::size_t)>& progress = {});

} // namespace gpuscale::run
