#pragma once
/// Seconds per micro-batch as a function of the micro-batch size, fitted through measured points
/// (Poplar, arXiv 2408.12596, sec. 4: profile a few batch sizes per GPU type, fit, interpolate).
///
/// The fit is piecewise linear through the points, made non-decreasing first by a running maximum
/// (a bigger micro-batch never takes less time; the planner's bisection relies on it). Between two
/// measured sizes the time is interpolated linearly; beyond the last one it is extrapolated with the
/// last segment's slope, which the planner never needs since it measures up to the memory limit.

#include <vector>

namespace gpuscale::analysis {

/// One measurement: a micro-batch of `micro_batch` samples took `time_s` seconds.
struct MicroBatchPoint {
  int micro_batch = 0;
  double time_s = 0;
};

class MicroBatchCurve {
public:
  /// `points`: at least one, distinct positive micro-batch sizes, non-negative times (any order).
  /// Throws std::invalid_argument otherwise.
  explicit MicroBatchCurve(std::vector<MicroBatchPoint> points);

  /// Fitted seconds for a micro-batch of `micro_batch` >= 1 samples; non-decreasing in it.
  double time_s(int micro_batch) const;

  /// time_s(1), ..., time_s(max_micro_batch).
  std::vector<double> tabulate(int max_micro_batch) const;

private:
  std::vector<MicroBatchPoint> points_; ///< sorted by micro_batch, times non-decreasing
};

} // namespace gpuscale::analysis
