#pragma once
/// Per-GPU memory under ZeRO stages 0-3 (Rajbhandari et al., "ZeRO: Memory Optimizations Toward
/// Training Trillion Parameter Models", SC'20, sec. 3 and fig. 1). For mixed-precision Adam with Ψ
/// trainable parameters over N data-parallel GPUs, model states take
///   stage 0: 2Ψ + 2Ψ + 12Ψ = 16Ψ     stage 1: 2Ψ + 2Ψ + 12Ψ/N
///   stage 2: 2Ψ + (2Ψ + 12Ψ)/N        stage 3: 16Ψ/N
/// Frozen parameters (LoRA base, frozen encoders) have no gradient or optimizer state; they are
/// sharded only by stage 3, and stored in the GEMM format when training in FP8 or FP4
/// (frozen_weight_bytes_per_param).

#include "sim/model/Scenario.hpp"

#include <string>

namespace gpuscale::engine {

/// Framework overhead that is not model state or activations: CUDA context, cuBLAS/NCCL workspaces,
/// allocator fragmentation. 1.5 GiB is what PyTorch typically holds beyond tensors on a data-centre GPU.
inline constexpr double kFrameworkReserveBytes = 1.5 * 1024 * 1024 * 1024;

struct MemoryEstimate {
  double parameter_bytes = 0;   ///< trainable, low precision (sharded by stage 3)
  double frozen_bytes = 0;      ///< frozen weights (sharded by stage 3; FP8/FP4: in the GEMM format)
  double gradient_bytes = 0;    ///< sharded by stages 2-3
  double optimizer_bytes = 0;   ///< fp32 master + states, sharded by stages 1-3
  double activation_bytes = 0;  ///< one micro-batch (pipeline stages: every forward pass in flight)
  double buffer_bytes = 0;      ///< communication buckets / stage-3 gathered layers
  double reserve_bytes = kFrameworkReserveBytes;
  double capacity_bytes = 0;

  double total_bytes() const;
  bool fits() const { return total_bytes() <= capacity_bytes; }
  /// "needs 143.2 GiB (parameters ..., ...) but the GPU has 80.0 GiB"
  std::string describe_shortfall(const std::string& gpu_name) const;
};

/// Bytes per frozen parameter. A frozen weight is never updated, so it needs no higher-precision copy:
/// only the operand its GEMMs read. Training in FP8 or FP4 stores it in that format, scales included
/// (format_bytes: 1 byte for fp8): NVIDIA's MLPerf Llama 2 70B LoRA configurations (NeMo, v4.0-v5.0)
/// set `fp8_params: true`, which keeps the 69 G frozen base weights as 64 GiB of FP8 instead of
/// 128 GiB of bf16 (what lets tp 1 hold them on one 180 GB B200 with most activations stored). The
/// FP4 formats follow the same rule; no MLPerf result of v3.0-v5.0 trains in FP4 to check it against.
/// Other precisions store frozen weights like trainable ones (element_bytes).
double frozen_weight_bytes_per_param(model::Precision precision);

/// Bytes of optimizer state (fp32 master copy included in mixed precision) per trainable parameter:
/// K = 12 for Adam/LAMB in the ZeRO paper's notation.
double optimizer_state_bytes_per_param(model::Optimizer optimizer, model::Precision precision);

/// Estimate for one GPU of type `gpu` in a data-parallel group of `data_parallel` replicas, after
/// the scenario's tensor/context-parallel sharding. With pipeline parallelism, the stage that needs
/// the most: its chunks' parameters and the activations of every forward pass its schedule holds
/// before the first backward (model::pipeline_passes_in_flight; stage 0 of 1F1B holds pp).
MemoryEstimate estimate_memory(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision, int data_parallel);

/// The same for a GPU running micro-batches of `micro_batch` samples (uneven allocations).
MemoryEstimate estimate_memory(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision, int data_parallel,
                               int micro_batch);

} // namespace gpuscale::engine
