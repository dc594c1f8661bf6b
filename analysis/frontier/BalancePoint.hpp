#pragma once
/// The balance point of a scaling series: its largest configuration before the marginal gain per
/// added GPU (ScalingSeries.hpp) first falls below a threshold. Past it, adding GPUs buys less than
/// `threshold` of a base GPU's worth of throughput each.

#include "analysis/frontier/ScalingSeries.hpp"

namespace gpuscale::analysis {

/// Default threshold: each added GPU must bring at least half of what a GPU brings at the base.
inline constexpr double kDefaultMarginalGainThreshold = 0.5;

struct BalancePoint {
  std::size_t point = 0;          ///< index into the series' points
  int gpus = 0;
  double next_marginal_gain = 0;  ///< gain of the step after it; NaN if it is the largest configuration
  bool limited = false;           ///< true: the gain fell below the threshold; false: every step kept above it
};

BalancePoint balance_point(const ScalingSeries& series, double threshold);

} // namespace gpuscale::analysis
