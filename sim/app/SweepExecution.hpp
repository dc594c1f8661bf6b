#pragma once
/// Runs the points of a sweep N at a time, each in its own process, and hands their rows to the
/// writer as they finish. First SIGINT (Ctrl-C): no new points start, running ones finish and are
/// written. Second SIGINT, or SIGTERM/SIGHUP (Slurm's scancel and time limit): running points are
/// killed. Either way everything finished is written before returning.

#include "sim/app/SweepResultsWriter.hpp"
#include "sim/model/SweepSpec.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpuscale::app {

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
  double elapsed_s = 0;
};

/// Runs `points` with `workers` processes; rows carry `sweep_id` and their point index.
SweepExecutionReport execute_sweep(const std::vector<const model::SweepPoint*>& points, const std::string& sweep_id,
                                   int workers, SweepResultsWriter& writer, bool interactive_progress);

} // namespace gpuscale::app
