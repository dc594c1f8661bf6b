#pragma once
/// What the kernel time model (ComputeCostModel.hpp) says of a kernel timed on a real GPU
/// (model::KernelTiming): the same shape, micro-batch and pass priced as the simulator prices it,
/// and the datasheet roofline no kernel can beat.

#include "sim/engine/ComputeCostModel.hpp"
#include "sim/model/KernelTiming.hpp"
#include "sim/model/Platform.hpp"
#include "sim/model/Scenario.hpp"

namespace gpuscale::engine {

struct ModelledKernel {
  KernelCost cost;      ///< useful and occupied FLOPs, HBM bytes, as the simulator counts them
  double roof_s = 0;    ///< max(useful FLOP / dense peak, bytes / HBM bandwidth): the datasheet's floor
  double model_s = 0;   ///< occupied FLOP and bytes at `efficiency`'s fractions, without the launch
  bool memory_bound = false; ///< the memory term is the larger in model_s
};

/// `timing`'s kernel on `gpu` (its compute units quantise the products) at `efficiency`.
ModelledKernel model_timed_kernel(const model::KernelTiming& timing, const model::GpuType& gpu,
                                  const model::Efficiency& efficiency);

} // namespace gpuscale::engine
