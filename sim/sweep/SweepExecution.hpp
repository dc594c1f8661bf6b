#pragma once
/// Runs the points of a sweep N at a time, each in its own process, and hands their rows to the
/// writer as they finish. First SIGINT (Ctrl-C): no new points start, running ones finish and are
/// written. Second SIGINT, or SIGTERM/SIGHUP (Slurm's scancel and time limit): running points are
/// killed. Either way everything finished is written before returning.

#include "sim/sweep/SweepResultsWriter.hpp"
#include "sim/model/SweepSpec.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpuscale::sweep {

struct FailedPoint {
  std::int64_t index = 0;
  std::string message;
};

struct SweepExecutionReport {
  std::size_t finished = 0;   ///< points with a row (ok or infeasible)
  std::size_t ok = 0;
  std::size_t infeasible = 0;
  std::vector<FailedPoint> failed; ///< simulations that threw or crashed: no row
  bool interrupted = false;
  int stopped_by = 0; ///< the signal that interrupted it (SIGINT, SIGTERM, SIGHUP); 0: none
  double elapsed_s = 0;
};

/// What a running sweep reports; the command line draws it (the sweep itself never prints). Costs are
/// in simulation cost units (simulation_cost_units: GPUs x layers x micro-batches).
class SweepObserver {
public:
  virtual ~SweepObserver() = default;
  /// Before the first point: `points` to run, expected to cost `total_cost` units together.
  virtual void started(std::size_t points, double total_cost) = 0;
  /// A point finished without costing its estimate (an infeasible one is a memory check, not a simulation).
  virtual void discounted(double cost) = 0;
  /// After each wait for points: `done` finished, `failed` of them without a row, `cost_done` units.
  virtual void progressed(std::size_t done, std::size_t failed, double cost_done) = 0;
  /// The first interrupt: no new point starts, the `running` ones are waited for.
  virtual void interrupted(std::size_t running) = 0;
  /// Everything is written: the final state.
  virtual void finished(std::size_t done, std::size_t failed, double cost_done) = 0;
};

/// Runs `points` with `workers` processes; rows carry `sweep_id` and their point index.
SweepExecutionReport execute_sweep(const std::vector<const model::SweepPoint*>& points, const std::string& sweep_id,
                                   int workers, SweepResultsWriter& writer, SweepObserver& observer);

} // namespace gpuscale::sweep
