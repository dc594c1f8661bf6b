#include "sim/engine/ScheduleBuilder.hpp"

#include "sim/engine/ComputeCostModel.hpp"
#include "sim/model/PipelineSchedule.hpp"
#include "sim/model/Recomputation.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpuscale::engine {
namespace {

using model::TensorParallelMode;

constexpr std::size_t kNotRecomputed = static_cast<std::size_t>(-1);

/// Whether Megatron runs a column-parallel linear's weight-gradient GEMM while its input-gradient
/// collective is in flight (workloads/SCHEMA.md, backward rule: a trained linear's backward =
/// input-gradient GEMM + weight-gradient GEMM). Not for a linear with frozen weights (Llama 2
/// LoRA's base qkv_proj, gate/up projections): Megatron runs those through LinearWithFrozenWeight,
/// whose backward reduces synchronously, with no weight gradient to hide behind.
bool overlaps_weight_gradient(const model::Layer& layer)
{
  return layer.kind == model::LayerKind::Linear && layer.trainable_params > 0 && layer.frozen_params <= 0;
}

class ProgramBuilder {
public:
  ProgramBuilder(const model::WorkloadTrace& workload, const model::Scenario& scenario, const model::GpuType& gpu,
                 model::Precision precision, model::BatchShare batch, int pipeline_stage)
      : workload_(workload), scenario_(scenario), gpu_(gpu), efficiency_(scenario.efficiency_for(gpu)),
        launch_s_(launch_time_s(scenario)),
        stage_(scenario.zero()), overlap_(scenario.overlaps_communication()),
        element_bytes_(model::element_bytes(precision)), precision_(precision), batch_(batch),
        recompute_begin_(recompute_runs(workload, scenario)), pipeline_stage_(pipeline_stage)
  {
    if (scenario.pipeline_parallel > 1) {
      chunks_ = model::pipeline_chunks(workload, scenario.pipeline_parallel * scenario.virtual_pipeline);
      if (chunks_.empty())
        throw std::invalid_argument("workload '" + workload.name + "' has fewer blocks than pipeline chunks");
      for (std::size_t c = static_cast<std::size_t>(pipeline_stage); c < chunks_.size();
           c += static_cast<std::size_t>(scenario.pipeline_parallel))
        owned_.push_back(chunks_[c]);
    } else {
      owned_.push_back({0, workload.layers.size()});
    }
  }

  StepProgram build()
  {
    if (scenario_.pipeline_parallel > 1)
      return build_pipeline();
    const int micro_batches = batch_.accumulation;
    if (gathers_parameters_before_use(stage_))
      plan_module_uses();
    for (int micro = 0; micro < micro_batches; ++micro) {
      const bool last = micro + 1 == micro_batches;
      const bool reduce_in_backward =
          reduces_during_backward(stage_, overlap_) && (reduces_every_micro_batch(stage_) || last);
      gradient_hooks_ = reduce_in_backward && runs_gradient_hooks(stage_, overlap_) && !scenario_.cuda_graph;
      next_use_ = 0;
      next_gather_ = 0;
      forward_layers(0, workload_.layers.size());
      backward_layers(0, workload_.layers.size(), reduce_in_backward);
      if (reduce_in_backward)
        flush_bucket();
    }
    return finish_step();
  }

private:
  /// After the last backward: the gradient reduction still to run, the optimizer on this GPU's
  /// parameters (its shard under ZeRO), and the parameter all-gather of the sharded stages.
  StepProgram finish_step()
  {
    if (!reduces_during_backward(stage_, overlap_)) // one reduction pass over all gradients after the last backward
      submit_in_buckets(Stream::Gradients, gradient_op(), total_trainable_local() * element_bytes_);
    program_.wait_all(Stream::Gradients);

    const double shard = shards_optimizer_states(stage_) ? scenario_.data_parallel() : 1.0;
    program_.sleep(total_trainable_local() / shard * optimizer_traffic_bytes_per_param(workload_.optimizer, precision_) /
                   (gpu_.memory_bw_Bps * efficiency_.memory));
    if (gathers_parameters_after_step(stage_)) { // every replica needs the updated parameters back
      submit_in_buckets(Stream::Parameters, CollectiveOp::AllGather, total_trainable_local() * element_bytes_);
      program_.wait_all(Stream::Parameters);
    }
    return std::move(program_);
  }

  // ---- pipeline parallelism as Megatron-LM runs it (model/PipelineSchedule.hpp) -------------------------------------
  //
  // The stage runs its schedule's chunk passes and exchanges. A chunk's gradients are reduced in the
  // backward of its last micro-batch (Megatron's DDP launches each bucket's reduction once the
  // micro-batch that completes its gradients has run backward: overlap_grad_reduce), beside it with
  // overlap_comm, else in one pass after the last backward; ZeRO-1 (the distributed optimizer)
  // reduce-scatters them and all-gathers the updated parameters after its step.

  StepProgram build_pipeline()
  {
    const int p = scenario_.pipeline_parallel;
    const int m = batch_.accumulation;
    // Megatron-Core sends the (sequence, micro-batch, hidden) tensor of this rank: the sequence split
    // by CP, and by TP under sequence parallelism (else every TP rank sends it whole).
    const double activation_bytes = model::pipeline_activation_bytes_per_sample(workload_) * micro() /
                                    scenario_.context_parallel /
                                    (scenario_.sequence_parallel ? scenario_.tensor_parallel : 1);
    for (const model::PipelineAction& action :
         model::pipeline_schedule(pipeline_stage_, p, scenario_.virtual_pipeline, m)) {
      const model::LayerRange& chunk = chunks_[static_cast<std::size_t>(action.chunk)];
      switch (action.kind) {
        case model::PipelineAction::Kind::Forward: forward_layers(chunk.begin, chunk.end); break;
        case model::PipelineAction::Kind::Backward: {
          const bool reduce = reduces_during_backward(stage_, overlap_) && action.micro_batch == m - 1;
          gradient_hooks_ = reduce && runs_gradient_hooks(stage_, overlap_) && !scenario_.cuda_graph;
          chunk_begin_ = chunk.begin;
          backward_layers(chunk.begin, chunk.end, reduce);
          chunk_begin_ = 0;
          if (reduce)
            flush_bucket();
          break;
        }
        case model::PipelineAction::Kind::Exchange: // _batched_p2p_ops' order
          if (action.send_prev)
            program_.send(kPreviousStage, activation_bytes);
          if (action.recv_prev)
            program_.receive(kPreviousStage, activation_bytes);
          if (action.send_next)
            program_.send(kNextStage, activation_bytes);
          if (action.recv_next)
            program_.receive(kNextStage, activation_bytes);
          program_.wait_transfers();
          break;
      }
    }
    return finish_step();
  }

  bool tp() const { return scenario_.tensor_parallel > 1; }
  /// Overlapped TP communication: sequence parallelism's collectives only (resolution refuses the rest).
  bool tp_overlap() const { return tp() && scenario_.tp_comm_overlap && scenario_.sequence_parallel; }
  CollectiveOp gradient_op() const { return gradient_collective(stage_); }
  bool cp() const { return scenario_.context_parallel > 1; }
  double micro() const { return batch_.micro_batch; }
  LayerShare layer_share(const model::Layer& layer) const { return share_of(layer, scenario_, batch_.micro_batch); }

  /// Trainable parameters this GPU holds: its layers' (its pipeline stage's chunks), after TP.
  double total_trainable_local() const
  {
    double total = 0;
    for (const model::LayerRange& range : owned_)
      for (std::size_t i = range.begin; i < range.end; ++i)
        total += layer_share(workload_.layers[i]).trainable_params;
    return total;
  }

  // ---- tensor parallelism as Megatron-LM runs it (megatron/core/tensor_parallel/layers.py, mappings.py) ----------
  //
  //   forward, and the recomputed forward    g: row layer's partial outputs summed, blocking
  //                                           (RowParallelLinear: reduce_from_tensor_model_parallel_region,
  //                                           or reduce_scatter_to_sequence_parallel_region + the all-gather
  //                                           of the next column layer's input under sequence parallelism)
  //   backward, row layer (SP only)           all-gather of the output gradient before its backward, blocking
  //                                           (the backward of the reduce-scatter above)
  //   backward, first column layer            f: its input gradient summed, an all-reduce (SP: a
  //                                           reduce-scatter), overlapped with that layer's weight-gradient
  //                                           GEMM (LinearWithGradAccumulationAndAsyncCommunication)
  //
  // Nothing else overlaps by default: TP collectives in forward wait for their inputs and are waited
  // for at once. With tp_comm_overlap (Megatron's --tp-comm-overlap: TransformerEngine's userbuffers
  // split the GEMM into tp chunks and exchange one chunk while computing another, sequence
  // parallelism only), every TP collective runs beside the GEMM next to it (tp_overlapped_*):
  //   forward   the reduce-scatter beside the row layer's GEMM that produces it; the all-gather,
  //             deferred to the next column layer, beside the GEMM that consumes it
  //   backward  the row layer's output-gradient all-gather beside its input-gradient GEMM; a frozen
  //             column layer's input-gradient reduce-scatter beside its input-gradient GEMM
  // An all-gather's first chunk is the rank's own (nothing to wait for); a reduce-scatter's last chunk
  // is reduced after the GEMM's last chunk, so 1/tp of it stays exposed.

  /// Bytes a TP collective of `layer` moves for this micro-batch (whole tensor; CP splits the sequence).
  double tensor_parallel_bytes(const model::Layer& layer) const
  {
    return tp() ? layer.tp_comm_bytes_per_sample * micro() / scenario_.context_parallel : 0.0;
  }

  /// Megatron's g after a row layer: an all-reduce, or under sequence parallelism a reduce-scatter
  /// followed by the all-gather that the next sub-block's first column layer issues before it runs
  /// (issued here, right after: both are blocking, so only the replicated norm/residual kernels between
  /// them change sides, not the step time).
  void row_forward_exchange(double bytes)
  {
    if (bytes <= 0)
      return;
    if (tp_overlap()) { // the reduce-scatter ran beside the GEMM; the gather waits for its consumer
      pending_gather_bytes_ += bytes;
      return;
    }
    if (scenario_.sequence_parallel) {
      program_.run_blocking(Stream::TensorParallel, CollectiveOp::ReduceScatter, bytes);
      program_.run_blocking(Stream::TensorParallel, CollectiveOp::AllGather, bytes);
    } else {
      program_.run_blocking(Stream::TensorParallel, CollectiveOp::AllReduce, bytes);
    }
  }

  /// A reduce-scatter of `bytes` pipelined with the kernels that produce it (tp_comm_overlap): all
  /// chunks but the last reduced while the kernels run, the last after them.
  void tp_overlapped_reduce_scatter(const LayerKernels& kernels, double bytes)
  {
    const double last_chunk = bytes / scenario_.tensor_parallel;
    const std::size_t reduced = program_.submit(Stream::TensorParallel, CollectiveOp::ReduceScatter, bytes - last_chunk);
    run_kernels(kernels);
    program_.wait(Stream::TensorParallel, reduced);
    program_.run_blocking(Stream::TensorParallel, CollectiveOp::ReduceScatter, last_chunk);
  }

  /// An all-gather of `bytes` pipelined with the kernels that consume it (tp_comm_overlap): they start
  /// on the rank's own chunk while the others arrive.
  void tp_overlapped_all_gather(const LayerKernels& kernels, double bytes)
  {
    const std::size_t gathered = program_.submit(Stream::TensorParallel, CollectiveOp::AllGather, bytes);
    run_kernels(kernels);
    program_.wait(Stream::TensorParallel, gathered);
  }

  /// The all-gather a row layer's forward left for the next column layer (tp_comm_overlap), blocking
  /// where no column layer follows in this pass.
  void flush_pending_gather()
  {
    if (pending_gather_bytes_ > 0)
      program_.run_blocking(Stream::TensorParallel, CollectiveOp::AllGather, pending_gather_bytes_);
    pending_gather_bytes_ = 0;
  }

  /// Backward of the first column layer of a sub-block with its collective `bytes` (Megatron's f).
  /// LinearWithGradAccumulationAndAsyncCommunication.backward, with CUDA_DEVICE_MAX_CONNECTIONS=1
  /// ordering communication before the next GEMM:
  ///   SP:     all-gather the saved sequence-sharded input (for the weight gradient) || input-gradient
  ///           GEMM; wait; reduce-scatter the input gradient || weight-gradient GEMM; wait
  ///   no SP:  input-gradient GEMM; all-reduce it (allreduce_dgrad, async_grad_allreduce in older
  ///           releases) || weight-gradient GEMM; wait
  /// so the overlap is bounded by that layer's weight-gradient GEMM (and, for the SP input
  /// all-gather, its input-gradient GEMM). A frozen column layer runs its kernel, then blocks.
  void column_backward(const model::Layer& layer, double bytes)
  {
    const LayerKernels kernels = backward_kernels(layer, scenario_, gpu_, precision_, batch_.micro_batch,
                                                  tp_overlap_row_chunks(layer, scenario_, true));
    const bool weight_gradient =
        overlaps_weight_gradient(layer) && std::any_of(kernels.kernels.begin(), kernels.kernels.end(),
                                                       [](const KernelCost& k) { return k.weight_gradient; });
    const CollectiveOp reduction = scenario_.sequence_parallel ? CollectiveOp::ReduceScatter : CollectiveOp::AllReduce;
    if (!weight_gradient) {
      if (tp_overlap()) {
        tp_overlapped_reduce_scatter(kernels, bytes);
        return;
      }
      run_kernels(kernels);
      program_.run_blocking(Stream::TensorParallel, reduction, bytes);
      return;
    }
    std::size_t gathered = 0;
    if (scenario_.sequence_parallel) // only a layer computing a weight gradient keeps its input sharded
      gathered = program_.submit(Stream::TensorParallel, CollectiveOp::AllGather, bytes);
    run_kernels(kernels, KernelPart::Other); // input-gradient GEMM (and the layer's other kernels)
    program_.wait(Stream::TensorParallel, gathered);
    const std::size_t reduced = program_.submit(Stream::TensorParallel, reduction, bytes);
    run_kernels(kernels, KernelPart::WeightGradient);
    program_.wait(Stream::TensorParallel, reduced);
  }

  /// K and V of one attention layer across the CP group: a TP rank holds only its 1/tp of the heads.
  double context_parallel_bytes(const model::Layer& layer) const
  {
    return layer.cp_comm_bytes_per_sample * micro() / (layer.tp_sharded() ? scenario_.tensor_parallel : 1);
  }

  void forward_layer(std::size_t index)
  {
    const model::Layer& layer = workload_.layers[index];
    const bool module = acquire_module(index);
    if (cp() && layer.cp_comm_bytes_per_sample > 0) // ring attention needs every rank's K and V
      program_.run_blocking(Stream::ContextParallel, CollectiveOp::AllGather, context_parallel_bytes(layer));
    const LayerKernels kernels = forward_kernels(layer, scenario_, gpu_, precision_, batch_.micro_batch,
                                                 tp_overlap_row_chunks(layer, scenario_, false));
    const double tp_bytes = layer.tensor_parallel == TensorParallelMode::Row ? tensor_parallel_bytes(layer) : 0.0;
    if (layer.tensor_parallel == TensorParallelMode::Column && pending_gather_bytes_ > 0) {
      tp_overlapped_all_gather(kernels, pending_gather_bytes_);
      pending_gather_bytes_ = 0;
    } else if (tp_overlap() && tp_bytes > 0) {
      tp_overlapped_reduce_scatter(kernels, tp_bytes);
    } else {
      run_kernels(kernels);
    }
    row_forward_exchange(tp_bytes);
    if (module)
      release_module(index);
  }

  void backward_layer(std::size_t index, bool reduce_gradients)
  {
    const model::Layer& layer = workload_.layers[index];
    if (recompute_begin_[index] != kNotRecomputed) // the checkpointed block's forward runs again first
      forward_layers(std::max(recompute_begin_[index], chunk_begin_), index + 1);
    const bool module = acquire_module(index);
    const LayerShare share = layer_share(layer);
    const bool has_backward = layer.backward_flop_per_sample > 0;
    const bool context_parallel = cp() && layer.cp_comm_bytes_per_sample > 0 && has_backward;
    const double tp_bytes = has_backward ? tensor_parallel_bytes(layer) : 0.0;
    if (context_parallel) // Megatron-Core's ring attention gathers K and V again for backward
      program_.run_blocking(Stream::ContextParallel, CollectiveOp::AllGather, context_parallel_bytes(layer));
    const bool row_gather = layer.tensor_parallel == TensorParallelMode::Row && scenario_.sequence_parallel && tp_bytes > 0;
    if (row_gather && tp_overlap())
      tp_overlapped_all_gather(backward_kernels(layer, scenario_, gpu_, precision_, batch_.micro_batch,
                                                tp_overlap_row_chunks(layer, scenario_, true)),
                               tp_bytes);
    else if (row_gather)
      program_.run_blocking(Stream::TensorParallel, CollectiveOp::AllGather, tp_bytes);
    if (layer.tensor_parallel == TensorParallelMode::Column && tp_bytes > 0)
      column_backward(layer, tp_bytes);
    else if (!(row_gather && tp_overlap()))
      run_kernels(backward_kernels(layer, scenario_, gpu_, precision_, batch_.micro_batch));
    if (context_parallel) // K/V gradients back to their owners
      program_.run_blocking(Stream::ContextParallel, CollectiveOp::ReduceScatter, context_parallel_bytes(layer));
    if (module)
      release_module(index);
    if (reduce_gradients) {
      if (gradient_hooks_) // DeepSpeed's per-tensor hook copies each gradient into the reduce bucket
        program_.host(trainable_tensors(layer) * scenario_.zero_host.tensor_hook_s);
      add_gradients(share.trainable_params * element_bytes_);
    }
  }

  /// For each layer that closes a run of layers recomputed under activation checkpointing (the last
  /// one in forward order, so the first one backward reaches), where the run begins; kNotRecomputed
  /// elsewhere. A run is one checkpointed block (workloads/SCHEMA.md, Checkpointing). Megatron-LM's
  /// CheckpointFunction (megatron/core/tensor_parallel/random.py, behind tensor_parallel.checkpoint;
  /// full recompute of each transformer layer, or selective recompute of the attention core) runs
  /// the block's forward under no_grad, and in its backward reruns that forward, TP and CP collectives
  /// included, before back-propagating through the block: the same kernels and collectives as the
  /// forward, at the point of the backward where the block starts.
  static std::vector<std::size_t> recompute_runs(const model::WorkloadTrace& workload, const model::Scenario& scenario)
  {
    const std::size_t n = workload.layers.size();
    const std::vector<bool> recomputed = model::recomputed_in_backward(workload, scenario);
    std::vector<std::size_t> begin_of(n, kNotRecomputed);
    std::size_t begin = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (!recomputed[i]) {
        begin = i + 1;
        continue;
      }
      if (i + 1 == n || !recomputed[i + 1])
        begin_of[i] = begin;
    }
    return begin_of;
  }

  /// A layer's kernels (ComputeCostModel) enter as the FLOPs the GPU host (speed = peak x compute
  /// efficiency) executes in their time: consecutive kernels stay one SimGrid activity instead of
  /// alternating with sleeps, which keeps simulations of many-layer models cheap.
  void run_kernels(const LayerKernels& kernels, KernelPart part = KernelPart::All)
  {
    const model::PeakRates peaks = model::peak_rates_of(gpu_, precision_);
    const double speed_flop_per_s = peaks.flop_per_s * efficiency_.compute;
    if (speed_flop_per_s <= 0) { // no peak at this precision: resolution refuses such runs
      program_.compute(kernels.flop());
      return;
    }
    program_.compute(kernels_time_s(kernels, peaks.at(efficiency_), launch_s_, part) * speed_flop_per_s);
  }

  void forward_layers(std::size_t begin, std::size_t end)
  {
    for (std::size_t i = begin; i < end; ++i)
      forward_layer(i);
    flush_pending_gather();
  }

  void backward_layers(std::size_t begin, std::size_t end, bool reduce_gradients)
  {
    for (std::size_t i = end; i > begin; --i)
      backward_layer(i - 1, reduce_gradients);
  }

  void add_gradients(double bytes)
  {
    bucket_bytes_ += bytes;
    if (bucket_bytes_ >= scenario_.reduce_bucket_bytes())
      flush_bucket();
  }

  /// Hands the filled bucket to the reduction: beside backward with overlap_comm (a stream of its
  /// own, waited for after the last backward), else on the compute stream, which it blocks
  /// (DeepSpeed's reduce_ipg_grads without overlap_comm runs on the current stream).
  void flush_bucket()
  {
    if (bucket_bytes_ <= 0)
      return;
    if (overlap_)
      program_.submit(Stream::Gradients, gradient_op(), bucket_bytes_);
    else
      program_.run_blocking(Stream::Gradients, gradient_op(), bucket_bytes_);
    bucket_bytes_ = 0;
  }

  void submit_in_buckets(Stream stream, CollectiveOp op, double bytes)
  {
    const double bucket = scenario_.reduce_bucket_bytes();
    for (double left = bytes; left > 0; left -= bucket)
      program_.submit(stream, op, std::min(left, bucket));
  }

  /// Parameter tensors of a layer with trainable parameters: a weight and a bias (a norm's gain and
  /// bias; a LoRA adapter's A and B). The traces do not list tensors; the count enters only the hooks'
  /// host time (ZeroHostCost).
  static double trainable_tensors(const model::Layer& layer) { return layer.trainable_params > 0 ? 2.0 : 0.0; }
  /// Tensors a ZeRO-3 fetch or release handles: the trainable ones, and a frozen weight.
  static double module_tensors(const model::Layer& layer)
  {
    return trainable_tensors(layer) + (layer.frozen_params > 0 ? 1.0 : 0.0);
  }

  // ---- parameters gathered before use (ZeRO-3) -------------------------------------------------------------------------------
  //
  // DeepSpeed's stage 3 (runtime/zero/partitioned_param_coordinator.py) around every use of a module
  // with parameters, in forward, in the forward that checkpointing reruns, and in backward:
  //   fetch    the host runs the pre-hook; if the module's parameters are not resident, their
  //            all-gather is issued unless prefetched, and the module waits for it; then the next
  //            modules of the recorded trace are prefetched while the parameters being prefetched stay
  //            under stage3_prefetch_bucket_size elements (at least one module)
  //   release  the post-hook frees the parameters unless the module's next use in this micro-batch
  //            comes within stage3_max_reuse_distance elements of other modules' parameters (default
  //            1e9: a model under 1e9 parameters keeps its forward's parameters for backward, which
  //            then gathers nothing)
  // Modules below stage3_param_persistence_threshold elements are never partitioned: no gather,
  // hooks only. The trace is the same every micro-batch, so the plan of which uses gather is made once.

  /// One use of a module with parameters in a micro-batch, in program order.
  struct ModuleUse {
    std::size_t layer = 0;
    double gather_bytes = 0; ///< 0: resident (persistent, or kept since its last use)
  };

  bool has_parameters(const model::Layer& layer) const
  {
    return layer.trainable_params > 0 || layer.frozen_params > 0;
  }

  double module_params(const model::Layer& layer) const
  {
    const LayerShare share = layer_share(layer);
    return share.trainable_params + share.frozen_params;
  }

  /// The module uses of one micro-batch in the order the program makes them (forward; backward from
  /// the last layer, each checkpointed block's forward rerun where its backward begins), and which of
  /// them gather.
  void plan_module_uses()
  {
    std::vector<std::size_t> order;
    const std::size_t n = workload_.layers.size();
    auto add = [&](std::size_t i) {
      if (has_parameters(workload_.layers[i]))
        order.push_back(i);
    };
    for (std::size_t i = 0; i < n; ++i)
      add(i);
    for (std::size_t i = n; i > 0; --i) {
      if (recompute_begin_[i - 1] != kNotRecomputed)
        for (std::size_t j = recompute_begin_[i - 1]; j < i; ++j)
          add(j);
      add(i - 1);
    }
    // Per use: its parameters, their running sum, and the next use of the same module (none: order.size()).
    const std::size_t uses = order.size();
    std::vector<double> params(uses);
    std::vector<double> before(uses + 1, 0.0); ///< parameters of the uses before k
    for (std::size_t k = 0; k < uses; ++k) {
      params[k] = module_params(workload_.layers[order[k]]);
      before[k + 1] = before[k] + params[k];
    }
    std::vector<std::size_t> next_use(uses, uses);
    std::vector<std::size_t> later(n, uses);
    for (std::size_t k = uses; k > 0; --k) {
      next_use[k - 1] = later[order[k - 1]];
      later[order[k - 1]] = k - 1;
    }
    uses_.assign(uses, {});
    std::vector<bool> resident(n, false);
    for (std::size_t k = 0; k < uses; ++k) {
      const bool persistent = params[k] < scenario_.zero3_persistence_threshold_params;
      uses_[k] = {order[k], persistent || resident[order[k]] ? 0.0 : params[k] * element_bytes_};
      // Kept for the next use if the parameters other modules use before it stay within the distance.
      const std::size_t next = next_use[k];
      resident[order[k]] =
          next < uses && before[next] - before[k + 1] < scenario_.zero3_max_reuse_distance_params;
    }
  }

  /// Issues the all-gather of use `k` (if it gathers) and returns its ticket.
  void issue_gather(std::size_t k)
  {
    if (uses_[k].gather_bytes > 0)
      gather_ticket_[k] = program_.submit(Stream::Parameters, CollectiveOp::AllGather, uses_[k].gather_bytes);
  }

  /// The fetch of layer `index` if it is a module with parameters under ZeRO-3: the pre-hook, the
  /// gather (issued now if not prefetched), the prefetch of the next uses, the wait. True if it was.
  bool acquire_module(std::size_t index)
  {
    if (!gathers_parameters_before_use(stage_) || !has_parameters(workload_.layers[index]))
      return false;
    const std::size_t k = next_use_++;
    if (gather_ticket_.size() != uses_.size())
      gather_ticket_.assign(uses_.size(), 0);
    const model::Layer& layer = workload_.layers[index];
    program_.host(scenario_.zero_host.module_hook_s + module_tensors(layer) * scenario_.zero_host.tensor_hook_s);
    if (next_gather_ <= k) { // not prefetched: fetched on demand
      issue_gather(k);
      next_gather_ = k + 1;
    }
    double prefetching = 0;
    for (std::size_t j = k + 1; j < next_gather_; ++j)
      prefetching += uses_[j].gather_bytes / element_bytes_;
    while (next_gather_ < uses_.size() && prefetching < scenario_.zero3_prefetch_params) {
      prefetching += uses_[next_gather_].gather_bytes / element_bytes_;
      issue_gather(next_gather_++);
    }
    if (uses_[k].gather_bytes > 0)
      program_.wait(Stream::Parameters, gather_ticket_[k]);
    return true;
  }

  /// The post-hook of a module use: its host time (freeing the parameters or not).
  void release_module(std::size_t index)
  {
    program_.host(scenario_.zero_host.module_hook_s +
                  module_tensors(workload_.layers[index]) * scenario_.zero_host.tensor_hook_s);
  }

  const model::WorkloadTrace& workload_;
  const model::Scenario& scenario_;
  const model::GpuType& gpu_;
  const model::Efficiency& efficiency_; ///< this GPU type's compute and memory efficiencies
  double launch_s_;                     ///< one kernel launch (ComputeCostModel)
  model::ZeroStage stage_;
  bool overlap_; ///< gradient reductions beside backward (Scenario::overlaps_communication)
  double element_bytes_;
  model::Precision precision_;
  model::BatchShare batch_;
  std::vector<std::size_t> recompute_begin_; ///< recompute_runs(): per layer, where its recomputed block begins
  StepProgram program_;
  double bucket_bytes_ = 0;
  double pending_gather_bytes_ = 0; ///< tp_comm_overlap: the all-gather the next column layer's forward runs
  bool gradient_hooks_ = false;     ///< this micro-batch's backward runs DeepSpeed's per-tensor gradient hooks
  std::vector<ModuleUse> uses_;     ///< ZeRO-3: the module uses of a micro-batch (plan_module_uses)
  std::vector<std::size_t> gather_ticket_;
  std::size_t next_use_ = 0;        ///< ZeRO-3: the next module use of this micro-batch
  std::size_t next_gather_ = 0;     ///< ZeRO-3: the first use whose gather is not issued yet
  int pipeline_stage_ = 0;
  std::vector<model::LayerRange> chunks_; ///< pipeline parallelism: every model chunk, by virtual stage
  std::vector<model::LayerRange> owned_;  ///< the layers this GPU holds (its stage's chunks; all without pp)
  std::size_t chunk_begin_ = 0;           ///< the chunk running backward: a recomputed block starts in it
};

} // namespace

CollectiveOp gradient_collective(model::ZeroStage stage)
{
  return model::gradient_reduction(stage) == model::GradientReduction::AllReduce ? CollectiveOp::AllReduce
                                                                                : CollectiveOp::ReduceScatter;
}

double optimizer_traffic_bytes_per_param(model::Optimizer optimizer, model::Precision precision)
{
  const double states = optimizer == model::Optimizer::SgdMomentum ? 4.0 : 8.0; // momentum | Adam/LAMB m and v
  const double element = model::element_bytes(precision);
  // LAMB (You et al. 2020, Algorithm 2) scales each layer's update u by ||w|| / ||u||, known only once
  // the whole update is computed: the first pass writes u (4 B), the norms read w and u (8 B), and a
  // second pass reads them again (8 B) to apply the update (apex FusedLAMB's two multi-tensor stages).
  const double trust_ratio = optimizer == model::Optimizer::Lamb ? 4.0 + 8.0 + 8.0 : 0.0;
  if (element >= 4.0) // fp32: read gradient, parameter, states; write parameter, states
    return 4.0 + 4.0 + states + 4.0 + states + trust_ratio;
  // mixed precision: read low-precision gradient, fp32 master, states; write master, states, low-precision copy
  return element + 4.0 + states + 4.0 + states + element + trust_ratio;
}

int tp_overlap_row_chunks(const model::Layer& layer, const model::Scenario& scenario, bool backward)
{
  const int tp = scenario.tensor_parallel;
  if (tp <= 1 || !scenario.tp_comm_overlap || !scenario.sequence_parallel || layer.tp_comm_bytes_per_sample <= 0)
    return 1;
  if (layer.tensor_parallel == TensorParallelMode::Row)
    return tp;
  if (layer.tensor_parallel == TensorParallelMode::Column)
    return backward && overlaps_weight_gradient(layer) ? 1 : tp;
  return 1;
}

LayerShare share_of(const model::Layer& layer, const model::Scenario& scenario, int micro_batch)
{
  const double tp = scenario.tensor_parallel;
  const double cp = scenario.context_parallel;
  // Sharded layers split over TP ranks; replicated ones are recomputed by every TP rank unless
  // sequence parallelism splits them along the sequence. CP splits every layer's sequence.
  const double compute_split = (layer.tp_sharded() || scenario.sequence_parallel ? tp : 1.0) * cp;
  const double param_split = layer.tp_sharded() ? tp : 1.0;
  const double micro = micro_batch;
  LayerShare share;
  share.forward_flop = layer.forward_flop_per_sample * micro / compute_split;
  share.backward_flop = layer.backward_flop_per_sample * micro / compute_split;
  share.trainable_params = layer.trainable_params / param_split;
  share.frozen_params = layer.frozen_params / param_split;
  share.compute_split = compute_split;
  return share;
}

StepProgram build_step_program(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision, model::BatchShare batch,
                               int pipeline_stage)
{
  return ProgramBuilder(workload, scenario, gpu, precision, batch, pipeline_stage).build();
}

StepProgram build_step_program(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision)
{
  return build_step_program(workload, scenario, gpu, precision,
                            {scenario.micro_batch_size, scenario.gradient_accumulation_steps()}, 0);
}

} // namespace gpuscale::engine
