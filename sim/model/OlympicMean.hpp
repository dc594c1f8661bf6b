#pragma once
/// The average MLPerf uses for reference convergence points.

#include <vector>

namespace gpuscale::model {

/// Mean after sorting and dropping the single smallest and the single largest value: the "olympic
/// mean" that mlperf_logging's rcp_checker takes over the runs of one RCP (and that result_summarizer
/// takes over a submission's run times). Throws std::invalid_argument for fewer than 3 values.
double olympic_mean(std::vector<double> values);

} // namespace gpuscale::model
