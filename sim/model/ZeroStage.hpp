#pragma once
/// ZeRO's stages (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
/// Models", SC 2020, sec. 5) and the rules each implies, stated once: what it shards over the
/// data-parallel group, how gradients are reduced, and what is gathered when. The schedule builder,
/// the memory model, the step decomposition and the readers ask these functions instead of comparing
/// stage numbers.
///
///   stage               shards                        gradients           parameters gathered
///   0  Ddp              nothing                       all-reduce          never
///   1  OptimizerStates  optimizer states              reduce-scatter      after the optimizer step
///   2  Gradients        + gradients                   reduce-scatter      after the optimizer step
///   3  Parameters       + parameters                  reduce-scatter      before use, forward and backward

#include <string>

namespace gpuscale::model {

enum class ZeroStage { Ddp = 0, OptimizerStates = 1, Gradients = 2, Parameters = 3 };

/// The stage numbered `stage` (0-3); throws std::invalid_argument otherwise.
ZeroStage zero_stage_of(int stage);
int stage_number(ZeroStage stage);
/// "ZeRO-2", as messages name it.
std::string to_string(ZeroStage stage);

/// Optimizer states (fp32 master, moments) are split over the data-parallel ranks: each rank
/// updates its 1/N shard.
bool shards_optimizer_states(ZeroStage stage);
/// Each rank keeps only its 1/N of the reduced gradients.
bool shards_gradients(ZeroStage stage);
/// Each rank holds only its 1/N of the parameters between uses.
bool shards_parameters(ZeroStage stage);

/// How gradients are reduced over the data-parallel group.
enum class GradientReduction {
  AllReduce,     ///< every rank gets the whole reduced gradient (DDP)
  ReduceScatter, ///< every rank gets the reduced shard it updates
};
GradientReduction gradient_reduction(ZeroStage stage);

/// Gradients are reduced on every micro-batch (DeepSpeed's stages 2 and 3, so full gradients are
/// never held) rather than only at the accumulation boundary (DDP's no_sync(), ZeRO-1).
bool reduces_every_micro_batch(ZeroStage stage);

/// Whether gradient reductions run beside the backward that fills their buckets (on a stream of their
/// own) unless the scenario says (`overlap_comm:`). Stage 0 is PyTorch DDP, whose reducer always
/// overlaps its bucketed all-reduce with backward; for stages 1-3 DeepSpeed's defaults
/// (zero_optimization.overlap_comm: false for stages 1 and 2, true for stage 3;
/// shared/references/ZERO.md).
bool overlaps_communication_by_default(ZeroStage stage);
/// Gradient buckets are handed to the reduction as backward fills them. Stage 1 does so only with
/// overlap_comm (DeepSpeed registers its per-parameter gradient hooks for stage 1 only then); without,
/// it reduces all gradients in one pass after the last backward. Whether a bucket's reduction then
/// runs beside the rest of backward or blocks it is `overlap_comm`.
bool reduces_during_backward(ZeroStage stage, bool overlap_comm);
/// DeepSpeed runs a Python hook per trainable parameter tensor on every backward that reduces
/// (stage_1_and_2.py / stage3.py reduce_independent_p_g_buckets_and_remove_grads: copy the gradient
/// into the reduce bucket, release it, bookkeeping): stages 2 and 3, and stage 1 with overlap_comm.
/// PyTorch DDP's reducer (stage 0) runs its hooks in C++ and is not charged.
bool runs_gradient_hooks(ZeroStage stage, bool overlap_comm);
/// Default of DeepSpeed's reduce_bucket_size and allgather_bucket_size, 5e8 elements, in bytes of
/// 2-byte gradients; PyTorch DDP's bucket_cap_mb = 25 MB for stage 0.
double default_bucket_bytes(ZeroStage stage);
/// Updated parameter shards are all-gathered after the optimizer step, so every replica has them all.
bool gathers_parameters_after_step(ZeroStage stage);
/// Parameters are all-gathered module by module before use in forward and again in backward, and
/// released after (DeepSpeed's pre/post sub-module hooks, fetch_sub_module / release_sub_module).
bool gathers_parameters_before_use(ZeroStage stage);
/// The step can be captured once and replayed as a CUDA graph. Not with parameters gathered before
/// use: DeepSpeed's stage 3 (like PyTorch FSDP) fetches and frees each module's parameters from
/// Python hooks, into buffers allocated at run time, with host-side decisions (what to prefetch next,
/// what to release) that change from step to step; a graph replays fixed kernels on fixed addresses,
/// so these steps run eagerly (torch.cuda.graphs' constraints: no dynamic allocation outside the
/// graph's private pool, no host synchronisation, static control flow).
bool allows_cuda_graph(ZeroStage stage);

} // namespace gpuscale::model
