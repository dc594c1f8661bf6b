#pragma once
/// Roofline time of one layer's kernel on one accelerator (model::Roofline):
///
///   t = max( FLOP / (peak x eff_compute),  bytes_moved / (HBM bandwidth x eff_memory) )
///
/// for the memory-bound layer kinds (norm, activation, elementwise, pool, embedding), and
/// t = FLOP / (peak x eff_compute) for the others (GEMMs, convolutions, attention cores, losses),
/// whose arithmetic intensity keeps them FLOP-bound at training batch sizes. Peaks and bandwidths
/// are the catalog's datasheet figures, so an accelerator with no MLPerf result gets a time from
/// its entry alone (Williams, Waterman, Patterson 2009, "Roofline", CACM 52(4)).
///
/// Bytes moved by a memory-bound kernel (a streaming model: every tensor read or written once):
///   forward   2 x A            read the input, write the output, each about A bytes, where A is
///                            the layer's activation_bytes_per_sample, or, when the trace keeps none
///                            (the tensor is recomputed or not needed), element_bytes x FLOP / 4
///                            (4 FLOP per element: the middle of the generator's 1-7 for adds,
///                            activations and norms, workloads/generator/building_blocks.py)
///   backward  3 x A            read the output gradient and the saved input, write the input
///                            gradient; only when the layer has backward FLOPs
/// per sample, times the micro-batch, divided like the FLOPs over TP / SP / CP ranks. A layer
/// recomputed under activation checkpointing runs its forward kernel (2 x A) once more in backward,
/// as its own kernel (build_step_program).

#include "sim/model/Platform.hpp"
#include "sim/model/Roofline.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/WorkloadTrace.hpp"

namespace gpuscale::engine {

/// One kernel's work on one rank.
struct KernelCost {
  double flop = 0;
  double bytes = 0;           ///< HBM traffic; 0 for FLOP-bound kinds
  bool memory_bound_kind = false;
};

/// Norm, activation, elementwise, pool, embedding.
bool is_memory_bound_kind(model::LayerKind kind);

/// Bytes a memory-bound layer's forward kernel moves per sample (2 x A above); 0 for other kinds.
double forward_bytes_per_sample(const model::Layer& layer, model::Precision precision);

/// The forward and backward kernels of `layer` on one rank for one micro-batch of `micro_batch`
/// samples under `scenario`'s parallelism (FLOPs as share_of gives them).
KernelCost forward_kernel(const model::Layer& layer, const model::Scenario& scenario, model::Precision precision,
                          int micro_batch);
KernelCost backward_kernel(const model::Layer& layer, const model::Scenario& scenario, model::Precision precision,
                           int micro_batch);

/// Seconds the kernel takes on `roofline`: the maximum above for memory-bound kinds, the FLOP term
/// for the others.
double kernel_time_s(const KernelCost& kernel, const model::Roofline& roofline);

/// True when the kernel is of a memory-bound kind and the memory term of the roofline is the larger.
bool is_memory_limited(const KernelCost& kernel, const model::Roofline& roofline);

} // namespace gpuscale::engine
