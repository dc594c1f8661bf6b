#pragma once
/// Published MLPerf results as rows the efficiency analysis reads, so `gpuscale frontier` runs on
/// real data (a `gpuscale mlperf import` file) as on simulated sweeps.

#include "sim/results/MlperfTables.hpp"
#include "sim/results/RunRecord.hpp"

#include <vector>

namespace gpuscale::mlperf {

/// One row per (benchmark, accelerator, accelerator count): the best published score at that scale,
/// with the system's figures (price, TDP and generation from the catalog when the accelerator is in it).
/// The series of a benchmark on one accelerator is then its published scaling curve.
std::vector<results::RunRecord> mlperf_frontier_rows(const std::vector<results::MlperfScoreRow>& scores);

} // namespace gpuscale::mlperf
