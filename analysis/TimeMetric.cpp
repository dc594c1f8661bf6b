#include "analysis/TimeMetric.hpp"

namespace gpuscale::analysis {

// Time per optimizer step (the simulated iteration). Results have no time-to-train column yet; when
// they do, return run.time_to_train_min * 60 here and rename the metric below.
double time_s(const results::RunRecord& run)
{
  return run.iter_time_s;
}

std::string time_metric_name()
{
  return "time per optimizer step";
}

} // namespace gpuscale::analysis
