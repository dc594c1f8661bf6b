#pragma once
/// Pipeline parallelism as Megatron-LM runs it: how a trace's blocks split into pipeline chunks, and
/// the order in which each stage runs its micro-batches' forward and backward passes and exchanges
/// activations with its neighbours (megatron/core/pipeline_parallel/schedules.py).
///
///   1F1B (virtual_pp = 1)   forward_backward_pipelining_without_interleaving: stage s runs
///                           min(p - s - 1, m) warm-up forwards, then alternates one forward and one
///                           backward, then the cool-down backwards.
///   interleaved (v > 1)     forward_backward_pipelining_with_interleaving: each stage holds v model
///                           chunks (virtual stages s, s + p, ..., s + (v-1) p) and runs them in groups
///                           of p micro-batches; warm-up (p - s - 1) x 2 + (v - 1) x p chunk passes.
///
/// Every exchange is Megatron's p2p_communicate with batched isend/irecv, waited for at once
/// (overlap_p2p_comm off): a stage posts its sends and receives to both neighbours and blocks until
/// all are done, so the bubble and the sends' cost follow from the schedule, not from a formula.

#include "sim/model/WorkloadTrace.hpp"

#include <cstddef>
#include <vector>

namespace gpuscale::model {

/// Layers [begin, end) of the trace.
struct LayerRange {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool operator==(const LayerRange&) const = default;
};

/// The trace's pipeline units: its repeat-group copies (Layer::block), the layers before the first
/// one joined to it and the layers after each one (final norm, head, loss) joined to it.
std::vector<LayerRange> pipeline_units(const WorkloadTrace& workload);

/// The trace cut into `chunks` consecutive model chunks of whole units. Units that do not divide
/// evenly leave the first and the last chunk one unit short each, then the second and the
/// second-to-last, ... (the Llama 3 405B layout: 126 layers on 16 stages as 7, 8 x 14, 7, which
/// balances the embedding and the output layer against one block each). Empty when the trace has
/// fewer units than chunks.
std::vector<LayerRange> pipeline_chunks(const WorkloadTrace& workload, int chunks);

/// Bytes per sample of the activation one chunk passes to the next: the residual stream, the output
/// a row-parallel layer produces (its tp_comm_bytes_per_sample); 0 for a trace without row layers.
double pipeline_activation_bytes_per_sample(const WorkloadTrace& workload);

/// One step of a stage's schedule.
struct PipelineAction {
  enum class Kind { Forward, Backward, Exchange };
  Kind kind = Kind::Forward;
  int chunk = 0;       ///< Forward, Backward: the model chunk (virtual stage v x p + s), 0 .. p v - 1
  int micro_batch = 0; ///< Forward, Backward
  // Exchange: what the stage posts before it waits (Megatron's tensor_send_next, tensor_send_prev,
  // recv_prev, recv_next). With v > 1 the stages form a ring: the last stage's next is stage 0.
  bool send_next = false;
  bool send_prev = false;
  bool recv_prev = false;
  bool recv_next = false;

  bool operator==(const PipelineAction&) const = default;
};

/// The schedule of `stage` (0 .. stages - 1) with `virtual_stages` chunks per stage over
/// `micro_batches` micro-batches. Interleaving (virtual_stages > 1) needs micro_batches to be a
/// multiple of stages (Megatron's rule); throws std::invalid_argument otherwise.
std::vector<PipelineAction> pipeline_schedule(int stage, int stages, int virtual_stages, int micro_batches);

/// The forward passes whose activations stage `stage` holds at once, at the peak of its schedule
/// (every forward before its first backward), per chunk of the stage (its v chunks in order). 1F1B:
/// min(p - s, m) (stage 0 holds p, Narayanan et al. 2021 sec. 2.2.1); interleaved: p v + p - 1 chunk
/// passes on stage 0, p (1 + (p - 1) / (p v)) micro-batches' worth of the stage's layers (Korthikanti
/// et al. 2022). Counted on pipeline_schedule itself, so the memory model holds what the engine runs.
std::vector<int> pipeline_passes_in_flight(int stage, int stages, int virtual_stages, int micro_batches);

} // namespace gpuscale::model
