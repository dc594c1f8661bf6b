#pragma once
/// The busy time of one GPU's step split by what bounds it, so calibration can rescale it for other
/// efficiencies without simulating again (docs/CALIBRATION.md, "The fit: a surrogate instead of the
/// simulator in the loop"):
///
///   busy(e_c, e_m) = F / (P e_c) + sum_k n_k max(f_k / (P e_c), b_k / (H e_m)) + O / (H e_m) + L
///
/// F: occupied FLOP of the kernels that move no HBM bytes of their own (fused ops, shape-less
/// FLOP-bound layers); (f_k, b_k) x n_k: the roofline kernels, occupied FLOP and bytes
/// (engine/ComputeCostModel.hpp); O: the optimizer step's HBM bytes; L: the kernel launches' fixed
/// time; P, H: peak FLOP/s at the training precision and HBM bandwidth.
/// engine::decompose_step fills it with the kernels build_step_program schedules.

#include "sim/model/Roofline.hpp"
#include "sim/model/Scenario.hpp"

#include <vector>

namespace gpuscale::model {

struct RooflineKernel {
  double flop = 0;
  double bytes = 0;
  double count = 0; ///< times per step
};

struct StepWork {
  double peak_flop_per_s = 0;
  double memory_bw_Bps = 0;
  double flop_bound_flop = 0;
  std::vector<RooflineKernel> memory_kernels;
  double optimizer_bytes = 0;
  double fixed_s = 0; ///< kernel launches: the same at any efficiency

  /// The GPU's roofs at `efficiency`.
  Roofline roofline(const Efficiency& efficiency) const { return PeakRates{peak_flop_per_s, memory_bw_Bps}.at(efficiency); }
  /// The formula above, in seconds (efficiency.network is not used).
  double busy_time_s(const Efficiency& efficiency) const;
  /// Seconds of FLOP-limited and of memory-limited work at `efficiency` (busy = their sum).
  double flop_limited_s(const Efficiency& efficiency) const;
  double memory_limited_s(const Efficiency& efficiency) const;
};

} // namespace gpuscale::model
