#include "sim/engine/MemoryModel.hpp"

#include "sim/engine/ScheduleBuilder.hpp"
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

MemoryEstimate estimate_memory(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision, int data_parallel,
                               int micro_batch)
{
  const double n = std::max(1, data_parallel);
  const double element = model::element_bytes(precision);
  const model::ZeroStage stage = scenario.zero();
  const double tp = scenario.tensor_parallel;
  const double cp = scenario.context_parallel;

  // Parameters after tensor-parallel sharding (ZeRO then shards them over the data-parallel group).
  double psi = 0;
  double frozen = 0;
  double largest_group_params = 0;
  double group_params = 0;
  for (const auto& layer : workload.layers) {
    const LayerShare share = share_of(layer, scenario, micro_batch);
    psi += share.trainable_params;
    frozen += share.frozen_params;
    group_params += share.trainable_params + share.frozen_params;
    if (group_params >= scenario.zero3_prefetch_params) {
      largest_group_params = std::max(largest_group_params, group_params);
      group_params = 0;
    }
  }
  largest_group_params = std::max(largest_group_params, group_params);

  MemoryEstimate m;
  m.capacity_bytes = gpu.memory_bytes;
  m.parameter_bytes = element * psi / (model::shards_parameters(stage) ? n : 1.0);
  m.frozen_bytes = frozen_weight_bytes_per_param(precision) * frozen / (model::shards_parameters(stage) ? n : 1.0);
  m.gradient_bytes = element * psi / (model::shards_gradients(stage) ? n : 1.0);
  m.optimizer_bytes = optimizer_state_bytes_per_param(workload.optimizer, precision) * psi /
                      (model::shards_optimizer_states(stage) ? n : 1.0);

  // Activations: stored per layer, split by CP along the sequence and by TP for sharded layers (all
  // layers under sequence parallelism). Under checkpointing only the boundaries (recomputed: false)
  // stay, and the recomputed layers between two boundaries are live together while recomputed.
  // A block that keeps its activations (partial checkpointing) stores them like any other layer.
  const std::vector<bool> recomputed = model::recomputed_in_backward(workload, scenario);
  double stored = 0;
  double largest_segment = 0;
  double segment = 0;
  for (std::size_t i = 0; i < workload.layers.size(); ++i) {
    const model::Layer& layer = workload.layers[i];
    const double split = cp * (layer.tp_sharded() || scenario.sequence_parallel ? tp : 1.0);
    const double bytes = layer.activation_bytes_per_sample / split;
    if (recomputed[i]) {
      segment += bytes;
      largest_segment = std::max(largest_segment, segment);
    } else {
      stored += bytes;
      segment = 0;
    }
  }
  m.activation_bytes = micro_batch * (stored + largest_segment);
  if (model::gathers_parameters_before_use(stage)) // the group in use and the prefetched next one, gathered in full
    m.buffer_bytes = 2.0 * largest_group_params * element;
  else // a bucket being reduced and the next one filling (DDP / DeepSpeed reduce buckets)
    m.buffer_bytes = 2.0 * std::min(scenario.reduce_bucket_bytes(), psi * element);
  return m;
}

} // namespace gpuscale::engine
