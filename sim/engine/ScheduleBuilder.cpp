#include "sim/engine/ScheduleBuilder.hpp"

#include "sim/engine/ComputeCostModel.hpp"

namespace gpuscale::engine {
namespace {

using model::TensorParallelMode;

class ProgramBuilder {
public:
  ProgramBuilder(const model::WorkloadTrace& workload, const model::Scenario& scenario, const model::GpuType& gpu,
                 model::Precision precision, model::BatchShare batch)
      : workload_(workload), scenario_(scenario), gpu_(gpu), stage_(scenario.zero()),
        element_bytes_(model::element_bytes(precision)), precision_(precision), batch_(batch)
  {
  }

  StepProgram build()
  {
    const int micro_batches = batch_.accumulation;
    for (int micro = 0; micro < micro_batches; ++micro) {
      const bool last = micro + 1 == micro_batches;
      const bool reduce_in_backward = reduces_during_backward(stage_) && (reduces_every_micro_batch(stage_) || last);
      if (gathers_parameters_before_use(stage_)) {
        gathered_forward();
        gathered_backward();
      } else {
        forward_layers(0, workload_.layers.size());
        backward_layers(0, workload_.layers.size(), reduce_in_backward);
      }
      if (reduce_in_backward)
        flush_bucket();
    }
    if (!reduces_during_backward(stage_)) // one reduction pass over all gradients after the last backward
      submit_in_buckets(Stream::Gradients, gradient_op(), total_trainable_local() * element_bytes_);
    program_.wait_all(Stream::Gradients);

    const double shard = shards_optimizer_states(stage_) ? scenario_.data_parallel() : 1.0;
    program_.sleep(total_trainable_local() / shard * optimizer_traffic_bytes_per_param(workload_.optimizer, precision_) /
                   (gpu_.memory_bw_Bps * scenario_.efficiency.memory));
    if (gathers_parameters_after_step(stage_)) { // every replica needs the updated parameters back
      submit_in_buckets(Stream::Parameters, CollectiveOp::AllGather, total_trainable_local() * element_bytes_);
      program_.wait_all(Stream::Parameters);
    }
    return std::move(program_);
  }

private:
  bool tp() const { return scenario_.tensor_parallel > 1; }
  CollectiveOp gradient_op() const { return gradient_collective(stage_); }
  bool cp() const { return scenario_.context_parallel > 1; }
  double micro() const { return batch_.micro_batch; }
  LayerShare layer_share(const model::Layer& layer) const { return share_of(layer, scenario_, batch_.micro_batch); }

  double total_trainable_local() const
  {
    double total = 0;
    for (const auto& layer : workload_.layers)
      total += layer_share(layer).trainable_params;
    return total;
  }

  /// A TP activation all-reduce, or its reduce-scatter + all-gather form under sequence parallelism.
  void tensor_parallel_exchange(double bytes)
  {
    if (!tp() || bytes <= 0)
      return;
    if (scenario_.sequence_parallel) {
      program_.run_blocking(Stream::TensorParallel, CollectiveOp::ReduceScatter, bytes);
      program_.run_blocking(Stream::TensorParallel, CollectiveOp::AllGather, bytes);
    } else {
      program_.run_blocking(Stream::TensorParallel, CollectiveOp::AllReduce, bytes);
    }
  }

  /// K and V of one attention layer across the CP group: a TP rank holds only its 1/tp of the heads.
  double context_parallel_bytes(const model::Layer& layer) const
  {
    return layer.cp_comm_bytes_per_sample * micro() / (layer.tp_sharded() ? scenario_.tensor_parallel : 1);
  }

  void forward_layer(const model::Layer& layer)
  {
    if (cp() && layer.cp_comm_bytes_per_sample > 0) // ring attention needs every rank's K and V
      program_.run_blocking(Stream::ContextParallel, CollectiveOp::AllGather, context_parallel_bytes(layer));
    run_kernel(forward_kernel(layer, scenario_, precision_, batch_.micro_batch));
    if (layer.tensor_parallel == TensorParallelMode::Row)
      tensor_parallel_exchange(layer.tp_comm_bytes_per_sample * micro() / scenario_.context_parallel);
  }

  void backward_layer(const model::Layer& layer, bool reduce_gradients)
  {
    const LayerShare share = layer_share(layer);
    const bool context_parallel = cp() && layer.cp_comm_bytes_per_sample > 0 && layer.backward_flop_per_sample > 0;
    if (context_parallel) // Megatron-Core's ring attention gathers K and V again for backward
      program_.run_blocking(Stream::ContextParallel, CollectiveOp::AllGather, context_parallel_bytes(layer));
    run_kernel(backward_kernel(layer, scenario_, precision_, batch_.micro_batch));
    if (context_parallel) // K/V gradients back to their owners
      program_.run_blocking(Stream::ContextParallel, CollectiveOp::ReduceScatter, context_parallel_bytes(layer));
    if (layer.tensor_parallel == TensorParallelMode::Column)
      tensor_parallel_exchange(layer.tp_comm_bytes_per_sample * micro() / scenario_.context_parallel);
    if (reduce_gradients)
      add_gradients(share.trainable_params * element_bytes_);
  }

  /// A layer's kernel on the roofline (ComputeCostModel). A memory-bound kernel enters as the FLOPs
  /// the GPU host (speed = peak x compute efficiency) executes in the kernel's HBM time: the same
  /// duration, but consecutive kernels stay one SimGrid activity instead of alternating with sleeps,
  /// which keeps simulations of many-layer models cheap.
  void run_kernel(const KernelCost& kernel)
  {
    const model::PeakRates peaks = model::peak_rates_of(gpu_, precision_);
    const model::Roofline roofline = peaks.at(scenario_.efficiency);
    if (peaks.flop_per_s > 0 && is_memory_limited(kernel, roofline))
      program_.compute(kernel_time_s(kernel, roofline) * peaks.flop_per_s * scenario_.efficiency.compute);
    else
      program_.compute(kernel.flop);
  }

  void forward_layers(std::size_t begin, std::size_t end)
  {
    for (std::size_t i = begin; i < end; ++i)
      forward_layer(workload_.layers[i]);
  }

  void backward_layers(std::size_t begin, std::size_t end, bool reduce_gradients)
  {
    for (std::size_t i = end; i > begin; --i)
      backward_layer(workload_.layers[i - 1], reduce_gradients);
  }

  void add_gradients(double bytes)
  {
    bucket_bytes_ += bytes;
    if (bucket_bytes_ >= scenario_.bucket_bytes)
      flush_bucket();
  }

  void flush_bucket()
  {
    if (bucket_bytes_ <= 0)
      return;
    program_.submit(Stream::Gradients, gradient_op(), bucket_bytes_);
    bucket_bytes_ = 0;
  }

  void submit_in_buckets(Stream stream, CollectiveOp op, double bytes)
  {
    for (double left = bytes; left > 0; left -= scenario_.bucket_bytes)
      program_.submit(stream, op, std::min(left, scenario_.bucket_bytes));
  }

  // ---- parameters gathered before use (ZeRO-3) -------------------------------------------------------------------------------

  /// Consecutive layers gathered together: DeepSpeed fetches parameters in groups of at least
  /// stage3_prefetch_bucket_size elements.
  struct Group {
    std::size_t begin = 0;
    std::size_t end = 0;
    double gather_bytes = 0;
  };

  const std::vector<Group>& groups()
  {
    if (!groups_.empty() || workload_.layers.empty())
      return groups_;
    Group group;
    double params = 0;
    for (std::size_t i = 0; i < workload_.layers.size(); ++i) {
      const LayerShare share = layer_share(workload_.layers[i]);
      params += share.trainable_params + share.frozen_params;
      group.end = i + 1;
      if (params >= scenario_.zero3_prefetch_params || i + 1 == workload_.layers.size()) {
        group.gather_bytes = params * element_bytes_;
        groups_.push_back(group);
        group = Group{i + 1, i + 1, 0};
        params = 0;
      }
    }
    return groups_;
  }

  void gathered_forward()
  {
    const auto& all = groups();
    std::vector<std::size_t> tickets(all.size(), 0);
    if (!all.empty())
      tickets[0] = program_.submit(Stream::Parameters, CollectiveOp::AllGather, all[0].gather_bytes);
    for (std::size_t g = 0; g < all.size(); ++g) {
      if (g + 1 < all.size()) // prefetch the next group while this one computes
        tickets[g + 1] = program_.submit(Stream::Parameters, CollectiveOp::AllGather, all[g + 1].gather_bytes);
      program_.wait(Stream::Parameters, tickets[g]);
      forward_layers(all[g].begin, all[g].end);
    }
  }

  void gathered_backward()
  {
    const auto& all = groups();
    const std::size_t n = all.size();
    std::vector<std::size_t> tickets(n, 0);
    if (n > 0)
      tickets[n - 1] = program_.submit(Stream::Parameters, CollectiveOp::AllGather, all[n - 1].gather_bytes);
    for (std::size_t g = n; g > 0; --g) {
      if (g >= 2)
        tickets[g - 2] = program_.submit(Stream::Parameters, CollectiveOp::AllGather, all[g - 2].gather_bytes);
      program_.wait(Stream::Parameters, tickets[g - 1]);
      backward_layers(all[g - 1].begin, all[g - 1].end, true);
    }
  }

  const model::WorkloadTrace& workload_;
  const model::Scenario& scenario_;
  const model::GpuType& gpu_;
  model::ZeroStage stage_;
  double element_bytes_;
  model::Precision precision_;
  model::BatchShare batch_;
  StepProgram program_;
  double bucket_bytes_ = 0;
  std::vector<Group> groups_;
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
  if (element >= 4.0) // fp32: read gradient, parameter, states; write parameter, states
    return 4.0 + 4.0 + states + 4.0 + states;
  // mixed precision: read low-precision gradient, fp32 master, states; write master, states, low-precision copy
  return element + 4.0 + states + 4.0 + states + element;
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
  const double recompute = scenario.activation_checkpointing && layer.recomputed ? layer.forward_flop_per_sample : 0.0;
  share.backward_flop = (layer.backward_flop_per_sample + recompute) * micro / compute_split;
  share.trainable_params = layer.trainable_params / param_split;
  share.frozen_params = layer.frozen_params / param_split;
  share.compute_split = compute_split;
  return share;
}

StepProgram build_step_program(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision, model::BatchShare batch)
{
  return ProgramBuilder(workload, scenario, gpu, precision, batch).build();
}

StepProgram build_step_program(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision)
{
  return build_step_program(workload, scenario, gpu, precision,
                            {scenario.micro_batch_size, scenario.gradient_accumulation_steps()});
}

} // namespace gpuscale::engine
