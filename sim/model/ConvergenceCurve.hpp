#pragma once
/// Samples a training run needs to reach the MLPerf quality target, as a function of the global
/// batch size, from MLPerf's reference convergence points (RCPs).

#include <vector>

namespace gpuscale::model {

/// One reference point: at `global_batch_size`, runs converge after `value` on average (samples or
/// epochs, as the table that holds it says), averaged over `runs` reference runs.
struct ConvergencePoint {
  int global_batch_size = 0;
  double value = 0;
  int runs = 0;

  bool operator==(const ConvergencePoint&) const = default;
};

/// What samples_to_converge() returns. `extrapolated` is true when the batch size lies outside the
/// reference points, and a report must say so. ConvergenceCurve then gives the nearest end's value;
/// ConvergenceModel extrapolates (the critical-batch-size fit above the points). [samples_low, samples_high] is the interval
/// (ConvergenceModel; ConvergenceCurve leaves it equal to samples).
struct ConvergenceEstimate {
  double samples = 0;
  bool extrapolated = false;
  double samples_low = 0;
  double samples_high = 0;
};

/// Piecewise log-log linear curve through reference points given in samples.
///
///   log S(b) = log S_i + (log b - log b_i) / (log b_{i+1} - log b_i) * (log S_{i+1} - log S_i)
///
/// for b_i <= b <= b_{i+1}: a power law between neighbours, exact at the points, and monotone
/// between any two neighbours (it need not be monotone overall: RCPs are noisy, e.g. BERT at
/// batch 448 converges in fewer samples than at 256).
class ConvergenceCurve {
public:
  /// `points_in_samples`: batch sizes strictly increasing and positive, values positive and finite.
  /// Throws std::invalid_argument otherwise (the config layer validates files before this).
  explicit ConvergenceCurve(std::vector<ConvergencePoint> points_in_samples);

  ConvergenceEstimate samples_to_converge(int global_batch_size) const;

  const std::vector<ConvergencePoint>& points() const { return points_; }
  int min_global_batch_size() const { return points_.front().global_batch_size; }
  int max_global_batch_size() const { return points_.back().global_batch_size; }

private:
  std::vector<ConvergencePoint> points_;
};

} // namespace gpuscale::model
