#pragma once
/// The time of one layer's kernels on one accelerator, from their shapes (workloads/SCHEMA.md,
/// "Kernels") and the accelerator's datasheet (docs/CALIBRATION.md, "Kernel time"):
///
///   t(kernel) = max( occupied FLOP / (peak x e_c),  bytes / (HBM bandwidth x e_m) ) + launch
///
/// * occupied FLOP: the FLOPs the GPU's compute units spend, useful or not. A GEMM (a convolution as
///   its implicit GEMM, a fused attention as its query blocks) runs as output tiles of at most 128 x
///   128 (MMA granularity 16), spread over the compute units in waves; the last wave's idle units and
///   the padded edges of partial tiles are paid for (NVIDIA, "Matrix Multiplication Background User's
///   Guide": tile and wave quantisation). A product with fewer tiles than units splits its inner
///   dimension (split-K) in chunks of at least 4 x 128. Elementwise kernels occupy what they compute.
///   An accelerator with no `compute_units` in the catalog is not quantised.
/// * bytes: what the kernel reads and writes in HBM: a GEMM its two operands and its output, a
///   convolution its input, filter and output, a fused attention Q, K, V and O, an elementwise op the
///   trace's bytes per element; an op fused into the kernel before it moves nothing of its own.
/// * launch: per kernel launched (fused ops are not), `kGraphLaunch_s` when the step is replayed as a
///   CUDA graph, `kEagerLaunch_s` when the host launches each kernel (shared/references/COMPUTE.md).
///   Added to the kernel: an upper bound for a host that runs ahead of long kernels.
///
/// e_c and e_m are fractions (<= 1) of the dense peak and the HBM bandwidth (the calibration's).
/// Backward kernels follow each forward kernel's backward_factor: a GEMM or convolution with 2 runs
/// its input-gradient and its weight-gradient products (each of the forward's FLOPs and bytes, each
/// quantised by its own shape), with 1 the input gradient alone; a fused attention runs one kernel of
/// twice the forward's FLOPs and bytes, tiled over key blocks; an elementwise op moves 1.5 x its
/// forward bytes (reads the output gradient and the saved input, writes the input gradient).
/// A micro-batch of b samples multiplies every kernel's rows, images or elements by b; tensor,
/// sequence and context parallelism divide the dimension they split (columns of a column-parallel
/// GEMM, its inner dimension for a row-parallel one, heads for attention, rows/tokens under sequence
/// and context parallelism), so FLOPs divide exactly as `share_of` divides them.
///
/// A layer whose trace gives no kernels keeps the previous model: one kernel of its FLOPs, moving
/// 2 x A forward and 3 x A backward for the memory-bound kinds (A: activation bytes per sample, or
/// element bytes x FLOP / 4 where the trace keeps none) and nothing for the others, unquantised and
/// without launches (how many kernels such a layer runs is unknown).

#include "sim/model/Platform.hpp"
#include "sim/model/Roofline.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/WorkloadTrace.hpp"

#include <vector>

namespace gpuscale::engine {

/// Fixed cost of one kernel launch: replayed from a CUDA graph, and launched eagerly by the host
/// ("around a microsecond" and "a few microseconds", shared/references/COMPUTE.md). Declared, not fitted.
inline constexpr double kGraphLaunch_s = 1e-6;
inline constexpr double kEagerLaunch_s = model::kHostDispatch_s;

/// One kernel on one rank for one micro-batch.
struct KernelCost {
  double flop = 0;          ///< useful FLOPs
  double occupied_flop = 0; ///< FLOPs its tiles and waves occupy: >= flop
  double bytes = 0;         ///< HBM traffic
  bool launched = true;     ///< a launch of its own (false: fused into the kernel before it)
  bool weight_gradient = false; ///< a weight-gradient product (what overlaps a column layer's TP reduction)
};

/// A layer's kernels in one pass (forward, or backward) on one rank.
struct LayerKernels {
  std::vector<KernelCost> kernels;
  double flop() const;
};

/// Norm, activation, elementwise, pool, embedding: the kinds the shape-less model streams.
bool is_memory_bound_kind(model::LayerKind kind);

/// The forward and backward kernels of `layer` on one `gpu` rank for one micro-batch of `micro_batch`
/// samples under `scenario`'s parallelism, at `precision`'s element size. `gemm_row_chunks` > 1: the
/// forward GEMMs and the backward input-gradient GEMMs run as that many products of 1/chunks of their
/// rows each, every one launched, quantised and reading the weights on its own (TransformerEngine's
/// userbuffers overlap: ScheduleBuilder's tp_overlap_row_chunks); weight-gradient GEMMs stay whole.
LayerKernels forward_kernels(const model::Layer& layer, const model::Scenario& scenario, const model::GpuType& gpu,
                             model::Precision precision, int micro_batch, int gemm_row_chunks = 1);
LayerKernels backward_kernels(const model::Layer& layer, const model::Scenario& scenario, const model::GpuType& gpu,
                              model::Precision precision, int micro_batch, int gemm_row_chunks = 1);

/// The fraction of an (m x k) by (k x n) product, `batch` of them, that does useful work on
/// `compute_units` units (tile and wave quantisation above); 1 when the units are unknown (0).
double tile_efficiency(double m, double n, double k, double batch, int compute_units);

/// Seconds one kernel takes on `roofline`, without its launch.
double kernel_time_s(const KernelCost& kernel, const model::Roofline& roofline);
/// Seconds of one launch under `scenario` (CUDA graph or not).
double launch_time_s(const model::Scenario& scenario);
/// Seconds of `kernels` (those that `weight_gradient` selects, or all) with their launches.
enum class KernelPart { All, WeightGradient, Other };
double kernels_time_s(const LayerKernels& kernels, const model::Roofline& roofline, double launch_s,
                      KernelPart part = KernelPart::All);

} // namespace gpuscale::engine
