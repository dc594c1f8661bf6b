#pragma once
/// A training workload as a sequence of layers (one forward pass in order; backward runs them in reverse).

#include "sim/model/Benchmark.hpp"
#include "sim/model/KernelShape.hpp"
#include "sim/model/Precision.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscale::model {

enum class LayerKind {
  Embedding, Conv, Linear, Attention, Norm, Activation, Pool, Elementwise, Loss, LoraLinear, Other
};
std::string to_string(LayerKind kind);
std::optional<LayerKind> parse_layer_kind(std::string_view name);
std::string known_layer_kinds();

enum class Optimizer { Adam, Lamb, SgdMomentum };
std::string to_string(Optimizer optimizer);
std::optional<Optimizer> parse_optimizer(std::string_view name);
std::string known_optimizers();

/// How Megatron-style tensor parallelism treats a layer (Shoeybi et al. 2019, sec. 3).
enum class TensorParallelMode {
  Replicated, ///< every TP rank computes it in full (norms, residual adds)
  Column,     ///< output dimension split; backward all-reduces the input gradient (if tp_comm bytes given)
  Row,        ///< input dimension split; forward all-reduces the output
};
std::string to_string(TensorParallelMode mode);

/// One layer of the trace. FLOPs follow the convention 1 multiply-add = 2 FLOP.
struct Layer {
  std::string name;
  LayerKind kind = LayerKind::Other;
  double trainable_params = 0;
  double frozen_params = 0;
  double forward_flop_per_sample = 0;
  double backward_flop_per_sample = 0;
  double activation_bytes_per_sample = 0;
  bool recomputed = false; ///< dropped and recomputed in backward under activation checkpointing
  TensorParallelMode tensor_parallel = TensorParallelMode::Replicated;
  double tp_comm_bytes_per_sample = 0; ///< all-reduced under TP: forward for row, backward for column layers
  double cp_comm_bytes_per_sample = 0; ///< K and V gathered under context parallelism (attention cores)
  /// The forward kernels of one sample with their shapes; empty where the trace gives none.
  std::vector<Kernel> kernels;
  /// Which copy of a repeat group the layer belongs to, counted over the trace's repeat groups in
  /// order (a transformer block); -1 outside repeat groups. Pipeline parallelism cuts between blocks.
  int block = -1;

  bool tp_sharded() const { return tensor_parallel != TensorParallelMode::Replicated; }
};

struct WorkloadTrace {
  std::string name;
  /// The MLPerf benchmark the trace models; none for a user workload (it then runs without calibrated
  /// efficiencies or overheads).
  std::optional<Benchmark> benchmark;
  /// `efficiency_benchmark:` a trace that is not an MLPerf benchmark but runs the kernels of one
  /// (LLM pretraining runs Llama 2's decoder-layer GEMMs, FlashAttention and norms) runs at that
  /// benchmark's calibrated compute and memory efficiencies. Ignored when `benchmark` is set.
  std::optional<Benchmark> efficiency_benchmark;
  std::string description;
  Precision precision = Precision::Bf16;
  std::string sample;
  Optimizer optimizer = Optimizer::Adam;
  std::vector<Layer> layers;

  /// The benchmark whose calibrated efficiencies the trace runs at: its own, else efficiency_benchmark.
  std::optional<Benchmark> calibrated_efficiencies() const { return benchmark ? benchmark : efficiency_benchmark; }
  double trainable_params() const;
  double frozen_params() const;
  double forward_flop_per_sample() const;
  double backward_flop_per_sample() const;
  /// Activation bytes kept per sample; with checkpointing only the layers that are not recomputed.
  double activation_bytes_per_sample(bool checkpointing) const;
  /// Forward FLOPs redone in backward per sample under activation checkpointing.
  double recompute_flop_per_sample() const;
};

} // namespace gpuscale::model
