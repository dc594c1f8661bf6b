#include "sim/model/TimeToTrain.hpp"

#include <cmath>
#include <stdexcept>

namespace gpuscale::model {
namespace {

/// The three parts for `samples` to converge.
TimeToTrain parts_at(const ConvergenceTable& table, const IterationTiming& timing, double samples)
{
  const double batch = timing.global_batch_size;
  const double seconds_per_sample = timing.iteration_time_s / batch;

  TimeToTrain result;
  result.samples_to_converge = samples;
  result.iterations = std::ceil(samples / batch);

  const EvaluationSchedule& evaluation = table.evaluation;
  double evaluation_s = 0;
  if (evaluation.timed) {
    result.evaluations = evaluation.evaluations(timing.global_batch_size, samples);
    evaluation_s = result.evaluations * evaluation.eval_samples * evaluation.relative_cost_per_sample * seconds_per_sample;
  }
  const double training_s = result.iterations * timing.iteration_time_s;

  result.training_s = training_s;
  result.evaluation_s = evaluation_s;
  result.overhead_s = table.run_start_overhead_s;
  result.total_s = result.training_s + result.evaluation_s + result.overhead_s;
  return result;
}

} // namespace

TimeToTrain estimate_time_to_train(const ConvergenceTable& table, const IterationTiming& timing)
{
  if (!(timing.iteration_time_s > 0) || !std::isfinite(timing.iteration_time_s))
    throw std::invalid_argument("estimate_time_to_train: iteration time must be positive and finite");
  if (timing.global_batch_size <= 0)
    throw std::invalid_argument("estimate_time_to_train: global batch size must be positive");

  const ConvergenceEstimate estimate = table.model().samples_to_converge(timing.global_batch_size);
  TimeToTrain result = parts_at(table, timing, estimate.samples);
  result.extrapolated = estimate.extrapolated;
  result.samples_to_converge_low = estimate.samples_low;
  result.samples_to_converge_high = estimate.samples_high;
  const auto total_at = [&](double samples) {
    return std::isnan(samples) ? samples : parts_at(table, timing, samples).total_s;
  };
  result.total_low_s = total_at(estimate.samples_low);
  result.total_high_s = total_at(estimate.samples_high);
  return result;
}

} // namespace gpuscale::model
