#pragma once
/// model::StepWork prepared for fast evaluation: the memory-bound kernels sorted by arithmetic
/// intensity with prefix sums, so busy_time_s costs a binary search instead of a pass over every
/// kernel. A kernel is FLOP-limited when f / b >= (P e_c) / (H e_m); the sorted order makes those a
/// prefix. Same value as StepWork::busy_time_s (the calibration fit calls it millions of times).

#include "sim/model/StepWork.hpp"

#include <vector>

namespace gpuscale::analysis {

class RooflineProfile {
public:
  RooflineProfile() = default;
  explicit RooflineProfile(const model::StepWork& work);

  double busy_time_s(double compute_efficiency, double memory_efficiency) const;

private:
  double peak_flop_per_s_ = 0;
  double memory_bw_Bps_ = 0;
  double flop_bound_flop_ = 0;
  double optimizer_bytes_ = 0;
  double fixed_s_ = 0; ///< kernel launches
  std::vector<double> intensity_;   ///< flop / byte, descending
  std::vector<double> flop_prefix_; ///< flop_prefix_[k]: count x flop of the first k kernels
  std::vector<double> byte_suffix_; ///< byte_suffix_[k]: count x bytes of kernels k..end
};

} // namespace gpuscale::analysis
