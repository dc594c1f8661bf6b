#pragma once
/// When and how long an MLPerf training run evaluates its model on the validation set. All counts are
/// training samples (the config layer converts epochs with the dataset size).

#include <optional>
#include <string>

namespace gpuscale::model {

/// The evaluation cadence of one benchmark. The interval between evaluations is
///
///   every(b) = every_samples + every_samples_per_global_batch_sample * b,
///              rounded down to a multiple of round_down_to_samples when that is positive,
///
/// which covers the constant cadences (ResNet: 4 epochs) and BERT's batch-dependent one (MLPerf
/// Training rules, BERT: floor(0.05 * (230.23 * b + 3,000,000) / 25,000) * 25,000 samples, i.e.
/// every_samples = 150,000, per-sample term 11.5115, rounding 25,000).
struct EvaluationSchedule {
  double every_samples = 0;                         ///< > 0
  double every_samples_per_global_batch_sample = 0; ///< >= 0
  double round_down_to_samples = 0;                 ///< 0: no rounding
  /// Training samples before the first evaluation. Neither set: one interval. At most one is set.
  std::optional<double> first_at_samples;
  std::optional<double> first_at_fraction_of_convergence; ///< in (0, 1]: submitters skip early evaluations
  double eval_samples = 0; ///< validation samples processed per evaluation
  /// Time to evaluate one validation sample as a multiple of the time to train on one training sample
  /// on the same GPUs. A forward pass alone is about 1/3 of forward + backward (backward ~ 2x forward
  /// FLOPs), so 1/3 is the prior; the tables hold values measured in MLPerf logs where they differ.
  double relative_cost_per_sample = 1.0 / 3.0;
  bool timed = true; ///< false: evaluation happens outside the timed run (MLPerf stable diffusion)
  std::string basis; ///< where the numbers come from

  /// Training samples between two evaluations at this global batch size (at least one sample).
  double interval_samples(int global_batch_size) const;
  /// Training samples before the first evaluation of a run that converges after `samples_to_converge`.
  double first_evaluation_samples(int global_batch_size, double samples_to_converge) const;
  /// Expected number of evaluations in a run that converges after `samples_to_converge`:
  /// 1 + (S - first) / interval, not rounded (S is a mean over runs that each stop at an evaluation),
  /// and at least 1 (convergence is only seen at an evaluation).
  double evaluations(int global_batch_size, double samples_to_converge) const;
};

} // namespace gpuscale::model
