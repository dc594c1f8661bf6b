#pragma once
/// The one time metric the efficiency analysis uses. Every speedup, GPU-hour, cost and energy figure
/// derives from time_s(), so switching the metric (to time-to-train once results carry it) is one line.

#include "sim/results/RunRecord.hpp"

#include <string>

namespace gpuscale::analysis {

/// Seconds of the metric for one run.
double time_s(const results::RunRecord& run);

/// What time_s() measures, for report headings ("time per optimizer step").
std::string time_metric_name();

} // namespace gpuscale::analysis
