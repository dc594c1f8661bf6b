#pragma once
/// The timed start of MLPerf runs before training, as logged, against what the convergence tables
/// charge per run (`run_start_overhead`, workloads/convergence/README.md). Every run pays its start and
/// nothing else in the model charges it, so a table's figure must cover it; `calibrate` reports both
/// and the tests check it.
///
/// Logged start: from run_start to the first block_start or epoch_start (MlperfRun::start_gap_s), the
/// median of each result's runs (MlperfEntry::median_start_gap_s), then the median over the results
/// of the benchmark, so that one submitter's slow start (tinygrad's 60 s, a DeepSpeed log whose first
/// block_start comes at its first evaluation) does not move the rest. What a run spends warming up
/// inside its first blocks is not in it.

#include "sim/model/MlperfRun.hpp"

#include <vector>

namespace gpuscale::analysis {

struct RunStartGap {
  model::Benchmark benchmark = model::Benchmark::Bert;
  double logged_s = 0; ///< the median above
  int results = 0;     ///< results whose logs show the start
};

/// One entry per benchmark of `entries` with results whose logs show the start, sorted by benchmark.
std::vector<RunStartGap> measure_run_start_gaps(const std::vector<model::MlperfEntry>& entries);

/// A table's run-start overhead below the logged start by more than this is reported as too low.
inline constexpr double kRunStartToleranceS = 0.25;

} // namespace gpuscale::analysis
