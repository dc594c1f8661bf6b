#include "sim/engine/MemoryModel.hpp"

#include "sim/engine/ScheduleBuilder.hpp"
#include "sim/model/PipelineSchedule.hpp"
#include "sim/model/Recomputation.hpp"
#include "sim/units/Quantity.hpp"

#include <algorithm>

namespace gpuscale::engine {

double MemoryEstimate::total_bytes() const
{
  return parameter_bytes + frozen_bytes + gradient_bytes + optimizer_bytes + activation_bytes + buffer_bytes +
         reserve_bytes;
}

std::string MemoryEstimate::describe_shortfall(const std::string& gpu_name) const
{
  using units::format_bytes;
  return "needs " + format_bytes(total_bytes()) + " per GPU (parameters " + format_bytes(parameter_bytes) +
         ", frozen " + format_bytes(frozen_bytes) + ", gradients " + format_bytes(gradient_bytes) + ", optimizer " +
         format_bytes(optimizer_bytes) + ", activations " + format_bytes(activation_bytes) + ", buffers " +
         format_bytes(buffer_bytes) + ", reserve " + format_bytes(reserve_bytes) + ") but " + gpu_name + " has " +
         format_bytes(capacity_bytes);
}

double optimizer_state_bytes_per_param(model::Optimizer optimizer, model::Precision precision)
{
  const double states = optimizer == model::Optimizer::SgdMomentum ? 4.0 : 8.0;
  const bool mixed = model::element_bytes(precision) < 4.0;
  return states + (mixed ? 4.0 : 0.0); // + fp32 master copy in mixed precision
}

double frozen_weight_bytes_per_param(model::Precision precision)
{
  return model::needs_own_units(precision) ? model::format_bytes(precision) : model::element_bytes(precision);
}

MemoryEstimate estimate_memory(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision, int data_parallel)
{
  return estimate_memory(workload, scenario, gpu, precision, data_parallel, scenario.micro_batch_size);
}

namespace {

/// The layers one GPU holds and how many forward passes of each it keeps activations for at once.
struct HeldChunks {
  std::vector<model::LayerRange> chunks;
  std::vector<int> passes; ///< per chunk
};

/// What pipeline stage `stage` holds at the peak of its schedule: its chunks, each with the forward
/// passes its schedule ran before the first backward (model::pipeline_passes_in_flight).
HeldChunks held_by_stage(const model::WorkloadTrace& workload, const model::Scenario& scenario, int stage)
{
  const int p = scenario.pipeline_parallel;
  const int v = scenario.virtual_pipeline;
  // Micro-batches per replica; a layout that does not divide the GPUs or the batch (a search's
  // candidate, before resolution refuses it) counts as one.
  const int replicas = scenario.gpus / std::max(1, scenario.model_parallel());
  const long long samples = static_cast<long long>(std::max(1, scenario.micro_batch_size)) * std::max(1, replicas);
  int m = static_cast<int>(std::max(1LL, scenario.global_batch_size / samples));
  if (v > 1 && m % p != 0) // the interleaved schedule needs multiples of p (resolution refuses the rest)
    m = (m / p + 1) * p;
  const std::vector<model::LayerRange> all = model::pipeline_chunks(workload, p * v);
  HeldChunks held;
  if (all.empty())
    return held;
  for (int c = 0; c < v; ++c)
    held.chunks.push_back(all[static_cast<std::size_t>(c * p + stage)]);
  held.passes = model::pipeline_passes_in_flight(stage, p, v, m);
  return held;
}

MemoryEstimate estimate_held(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                             const model::GpuType& gpu, model::Precision precision, int data_parallel, int micro_batch,
                             const HeldChunks& held)
{
  const double n = std::max(1, data_parallel);
  const double element = model::element_bytes(precision);
  const model::ZeroStage stage = scenario.zero();
  const double tp = scenario.tensor_parallel;
  const double cp = scenario.context_parallel;
  const std::vector<bool> recomputed = model::recomputed_in_backward(workload, scenario);

  // Parameters after tensor-parallel sharding (ZeRO then shards them over the data-parallel group).
  double psi = 0;
  double frozen = 0;
  double largest_group_params = 0;
  double group_params = 0;
  // Activations: stored per layer, split by CP along the sequence and by TP for sharded layers (all
  // layers under sequence parallelism). Under checkpointing only the boundaries (recomputed: false)
  // stay, and the recomputed layers between two boundaries are live together while recomputed.
  // A block that keeps its activations (partial checkpointing) stores them like any other layer.
  // Each forward pass in flight keeps its chunk's stored activations; one recomputation runs at a time.
  double stored = 0;
  double largest_segment = 0;
  for (std::size_t c = 0; c < held.chunks.size(); ++c) {
    double chunk_stored = 0;
    double segment = 0;
    for (std::size_t i = held.chunks[c].begin; i < held.chunks[c].end; ++i) {
      const model::Layer& layer = workload.layers[i];
      const LayerShare share = share_of(layer, scenario, micro_batch);
      psi += share.trainable_params;
      frozen += share.frozen_params;
      group_params += share.trainable_params + share.frozen_params;
      if (group_params >= scenario.zero3_prefetch_params) {
        largest_group_params = std::max(largest_group_params, group_params);
        group_params = 0;
      }
      const double split = cp * (layer.tp_sharded() || scenario.sequence_parallel ? tp : 1.0);
      const double bytes = layer.activation_bytes_per_sample / split;
      if (recomputed[i]) {
        segment += bytes;
        largest_segment = std::max(largest_segment, segment);
      } else {
        chunk_stored += bytes;
        segment = 0;
      }
    }
    stored += held.passes[c] * chunk_stored;
  }
  largest_group_params = std::max(largest_group_params, group_params);

  MemoryEstimate m;
  m.capacity_bytes = gpu.memory_bytes;
  m.parameter_bytes = element * psi / (model::shards_parameters(stage) ? n : 1.0);
  m.frozen_bytes = frozen_weight_bytes_per_param(precision) * frozen / (model::shards_parameters(stage) ? n : 1.0);
  m.gradient_bytes = element * psi / (model::shards_gradients(stage) ? n : 1.0);
  m.optimizer_bytes = optimizer_state_bytes_per_param(workload.optimizer, precision) * psi /
                      (model::shards_optimizer_states(stage) ? n : 1.0);
  m.activation_bytes = micro_batch * (stored + largest_segment);
  if (model::gathers_parameters_before_use(stage)) // the group in use and the prefetched next one, gathered in full
    m.buffer_bytes = 2.0 * largest_group_params * element;
  else // a bucket being reduced and the next one filling (DDP / DeepSpeed reduce buckets)
    m.buffer_bytes = 2.0 * std::min(scenario.reduce_bucket_bytes(), psi * element);
  return m;
}

} // namespace

MemoryEstimate estimate_memory(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision, int data_parallel,
                               int micro_batch)
{
  if (scenario.pipeline_parallel <= 1)
    return estimate_held(workload, scenario, gpu, precision, data_parallel, micro_batch,
                         {{{0, workload.layers.size()}}, {1}});
  // Every stage must fit: the estimate of the one needing the most.
  MemoryEstimate largest;
  for (int stage = 0; stage < scenario.pipeline_parallel; ++stage) {
    const MemoryEstimate m = estimate_held(workload, scenario, gpu, precision, data_parallel, micro_batch,
                                           held_by_stage(workload, scenario, stage));
    if (stage == 0 || m.total_bytes() > largest.total_bytes())
      largest = m;
  }
  return largest;
}

} // namespace gpuscale::engine
