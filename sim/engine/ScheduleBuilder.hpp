#pragma once
/// Builds a GPU's StepProgram for ZeRO stages 0-3 as PyTorch DDP (stage 0) and DeepSpeed (1-3) run
/// them, with Megatron tensor parallelism and context parallelism inside each data-parallel replica.
///
///   stage 0 (DDP)  backward of the last micro-batch hands 25 MB gradient buckets to an all-reduce as
///                  they fill (reverse layer order), overlapping the rest of backward; full optimizer step.
///   stage 1        after the last backward: reduce-scatter the gradients in buckets (with overlap_comm:
///                  during that backward), optimizer on the 1/dp shard, all-gather the updated parameters.
///   stage 2        gradient buckets reduce-scattered during every micro-batch's backward (DeepSpeed
///                  reduces each micro-step so full gradients are never held), shard optimizer,
///                  parameter all-gather.
///   stage 3        each module's parameters gathered before its use in forward, in checkpointing's
///                  rerun and in backward, unless kept since its last use (stage3_max_reuse_distance)
///                  or never partitioned (stage3_param_persistence_threshold); the next modules
///                  prefetched; gradients reduce-scattered per bucket; shard optimizer.
/// DeepSpeed's buckets are 5e8 elements (all of BERT-large's gradients in one) and overlap_comm is off
/// for stages 1-2 (every reduction then blocks the compute stream), on for 3 (model::ZeroStage). Its
/// Python hooks (a fetch and a release per module use, a gradient hook per trainable tensor) add
/// host time to the compute stream (model::ZeroHostCost).
/// With every reduction overlapped, 25 MB buckets and every use gathering, the data-parallel volume is
/// 2Ψ per step for stages 0-2 and 3Ψ for stage 3 (ZeRO paper, sec. 7); under DeepSpeed's reuse distance
/// a model below 1e9 parameters gathers once per micro-batch (2Ψ with the reduce-scatter).
/// Each stage's rules (what it shards, reduces and gathers when) are model::ZeroStage's functions.
///
/// Tensor parallelism as Megatron-LM issues it (docs/ARCHITECTURE.md, "Tensor parallelism in the step
/// schedule"): blocking collectives in forward and in the forward that activation checkpointing
/// reruns at the start of each checkpointed block's backward; in backward the input-gradient
/// reduction of a trained column-parallel linear overlaps that layer's weight-gradient GEMM.

#include "sim/engine/StepProgram.hpp"
#include "sim/model/Scenario.hpp"

namespace gpuscale::engine {

/// The collective that reduces gradients at `stage` (model::gradient_reduction).
CollectiveOp gradient_collective(model::ZeroStage stage);

/// Bytes the optimizer step reads and writes per trainable parameter (mixed precision: low-precision
/// gradient in, fp32 master and states read and written, low-precision parameter out).
double optimizer_traffic_bytes_per_param(model::Optimizer optimizer, model::Precision precision);

/// The work of one layer on one rank: FLOPs and parameters after TP/CP sharding.
struct LayerShare {
  double forward_flop = 0;  ///< per micro-batch
  double backward_flop = 0; ///< per micro-batch, recomputation excluded (a recomputed layer runs its forward again)
  double trainable_params = 0;
  double frozen_params = 0;
  double compute_split = 1; ///< ranks the layer's work is divided over (tp if sharded or SP, x cp)
};

/// The products each GEMM of `layer` runs as in forward (`backward` false) or as input gradient
/// (true) on one rank: tp where tp_comm_overlap pipelines the layer's TP collective with it, else 1.
/// TransformerEngine's userbuffers overlap (Megatron's --tp-comm-overlap) cuts the GEMM beside an
/// all-gather or reduce-scatter into tp products along its rows, one per chunk exchanged
/// (transformer_engine/pytorch/csrc/comm_gemm_overlap: split_overlap_ag, split_overlap_rs): a row
/// layer's forward GEMM and input-gradient GEMM, a column layer's forward GEMM and, where no weight
/// gradient carries the reduction (frozen weights), its input-gradient GEMM. Each product is
/// quantised on its own rows, so a chunked GEMM fills the compute units worse the fewer tokens a rank
/// holds (context parallelism halves them).
int tp_overlap_row_chunks(const model::Layer& layer, const model::Scenario& scenario, bool backward);

/// How `layer` divides over tp x cp ranks for a micro-batch of `micro_batch` samples.
LayerShare share_of(const model::Layer& layer, const model::Scenario& scenario, int micro_batch);

/// The step of a GPU that runs `batch` (its micro-batch size and accumulation steps) on pipeline
/// stage `pipeline_stage` (0 without pipeline parallelism): with pp > 1 the stage's chunks in its
/// Megatron schedule (model/PipelineSchedule.hpp), point-to-point sends to its neighbours included.
StepProgram build_step_program(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision, model::BatchShare batch,
                               int pipeline_stage);

/// The step of stage 0 with the scenario's uniform batch share.
StepProgram build_step_program(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision);

} // namespace gpuscale::engine
