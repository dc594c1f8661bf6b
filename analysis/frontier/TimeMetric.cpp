#include "analysis/frontier/TimeMetric.hpp"

#include "sim/units/Quantity.hpp"

namespace gpuscale::analysis {

// Time to train: iter_time_s stretched by the host input pipeline (effective_iter_time_s) times the
// steps the workload's convergence table predicts for the global batch, plus evaluation and run-start
// overhead. Rows of workloads without a convergence table have time_to_train_min = 0 and are left out.
// For the time per optimizer step instead: return run.iter_time_s; and rename the metric below.
double time_s(const results::RunRecord& run)
{
  return units::from_minutes(run.time_to_train_min);
}

double time_low_s(const results::RunRecord& run)
{
  return run.time_to_train_low_min == 0 ? time_s(run) : units::from_minutes(run.time_to_train_low_min);
}

double time_high_s(const results::RunRecord& run)
{
  return run.time_to_train_high_min == 0 ? time_s(run) : units::from_minutes(run.time_to_train_high_min);
}

std::string time_metric_name()
{
  return "time to train";
}

} // namespace gpuscale::analysis
