#include "sim/model/EvaluationSchedule.hpp"

#include <algorithm>
#include <cmath>

namespace gpuscale::model {

double EvaluationSchedule::interval_samples(int global_batch_size) const
{
  double interval = every_samples + every_samples_per_global_batch_sample * global_batch_size;
  if (round_down_to_samples > 0)
    interval = std::floor(interval / round_down_to_samples) * round_down_to_samples;
  return std::max(interval, 1.0);
}

double EvaluationSchedule::first_evaluation_samples(int global_batch_size, double samples_to_converge) const
{
  if (first_at_samples)
    return *first_at_samples;
  if (first_at_fraction_of_convergence)
    return *first_at_fraction_of_convergence * samples_to_converge;
  return interval_samples(global_batch_size);
}

double EvaluationSchedule::evaluations(int global_batch_size, double samples_to_converge) const
{
  const double first = first_evaluation_samples(global_batch_size, samples_to_converge);
  return std::max(1.0, 1.0 + (samples_to_converge - first) / interval_samples(global_batch_size));
}

} // namespace gpuscale::model
