#pragma once
/// MLPerf-style time to train: the timed run from run_start to run_stop, built from a simulated
/// iteration time and a convergence table.

#include "sim/model/ConvergenceTable.hpp"

namespace gpuscale::model {

/// The simulated step: one optimizer step of `global_batch_size` samples takes `iteration_time_s`.
struct IterationTiming {
  double iteration_time_s = 0; ///< > 0
  int global_batch_size = 0;   ///< > 0
};

/// Seconds to train and their parts; total_s = training_s + evaluation_s + overhead_s.
struct TimeToTrain {
  double total_s = 0;
  double training_s = 0;   ///< iterations x iteration time
  double evaluation_s = 0; ///< evaluations x eval_samples x relative cost x training time per sample
  double overhead_s = 0;   ///< the table's run_start_overhead
  double samples_to_converge = 0;
  double iterations = 0;     ///< ceil(samples_to_converge / global batch size)
  double evaluations = 0;    ///< expected count (EvaluationSchedule::evaluations); 0 if untimed
  /// The batch size lies outside the reference points: samples_to_converge is ConvergenceModel's
  /// extrapolation (the critical-batch-size fit above them), with the interval below.
  bool extrapolated = false;
  /// 95 % interval of samples_to_converge (equal to it inside the reference points; NaN where the
  /// table has too few points for a fit) and total_s at its ends.
  double samples_to_converge_low = 0;
  double samples_to_converge_high = 0;
  double total_low_s = 0;
  double total_high_s = 0;
};

/// Time to train at `timing` under `table`:
///
///   training   = ceil(S / B) * t_iter
///   evaluation = n_eval * eval_samples * c * (t_iter / B)      (0 when evaluation is untimed)
///   overhead   = run_start_overhead
///
/// with S = samples to converge at B (ConvergenceModel), n_eval from EvaluationSchedule and c its
/// relative cost per evaluation sample. Evaluation runs on the same GPUs as training. Throws
/// std::invalid_argument on a non-positive iteration time or batch size. total_low_s and
/// total_high_s are the same sum at the ends of S's interval (the sum is non-decreasing in S).
TimeToTrain estimate_time_to_train(const ConvergenceTable& table, const IterationTiming& timing);

} // namespace gpuscale::model
