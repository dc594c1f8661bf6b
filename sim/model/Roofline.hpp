#pragma once
/// The roofline (Williams, Waterman & Patterson 2009, "Roofline", CACM 52(4)), stated once: a kernel
/// doing `flop` FLOPs and moving `bytes` of HBM traffic takes
///
///   t = max( flop / (peak x e_compute),  bytes / (HBM bandwidth x e_memory) )
///
/// and is memory-limited when the second term is the larger. The engine's kernel costs
/// (ComputeCostModel), the step decomposition the calibration rescales (StepWork), its fast form
/// (analysis::RooflineProfile) and the batch profiler all take their roofs from here.

#include "sim/model/Platform.hpp"
#include "sim/model/Precision.hpp"
#include "sim/model/Scenario.hpp"

namespace gpuscale::model {

/// One kernel's work.
struct KernelWork {
  double flop = 0;
  double bytes = 0; ///< HBM traffic
};

struct Roofline {
  double flop_per_s = 0;  ///< compute roof: dense peak at the training precision x compute efficiency
  double bytes_per_s = 0; ///< memory roof: HBM bandwidth x memory efficiency

  /// Seconds `kernel` takes: the larger of its two terms.
  double time_s(const KernelWork& kernel) const;
  /// The memory term is the larger one.
  bool memory_limited(const KernelWork& kernel) const;
  /// FLOP per byte below which a kernel is memory-limited (the ridge point).
  double ridge_intensity() const { return flop_per_s / bytes_per_s; }
};

/// A GPU's datasheet figures, before efficiencies.
struct PeakRates {
  double flop_per_s = 0;    ///< dense peak at the training precision
  double memory_bw_Bps = 0; ///< HBM bandwidth
  /// The roofs reached at `efficiency`.
  Roofline at(const Efficiency& efficiency) const
  {
    return {flop_per_s * efficiency.compute, memory_bw_Bps * efficiency.memory};
  }
};

/// `gpu`'s figures at `precision` (peak 0 where it has none at that precision).
PeakRates peak_rates_of(const GpuType& gpu, Precision precision);

} // namespace gpuscale::model
