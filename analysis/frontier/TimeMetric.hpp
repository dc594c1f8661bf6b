#pragma once
/// The one time metric the efficiency analysis uses. Every speedup, GPU-hour, cost and energy figure
/// derives from time_s(), so switching the metric is one line in TimeMetric.cpp.

#include "sim/results/RunRecord.hpp"

#include <string>

namespace gpuscale::analysis {

/// Seconds of the metric for one run; 0 when the run has none (it is then left out of the analysis).
double time_s(const results::RunRecord& run);

/// The 80 % interval of time_s() (time_to_train_low_min, time_to_train_high_min: the calibration's
/// errors, docs/UNCERTAINTY.md). Rows that carry none (a scenario stating its own efficiencies, a
/// published result) get [time_s, time_s]; NaN where an extrapolated convergence has no interval.
double time_low_s(const results::RunRecord& run);
double time_high_s(const results::RunRecord& run);

/// What time_s() measures, for report headings and axis labels ("time to train").
std::string time_metric_name();

} // namespace gpuscale::analysis
