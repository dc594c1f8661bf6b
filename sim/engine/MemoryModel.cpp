#include "sim/engine/MemoryModel.hpp"

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

MemoryEstimate estimate_memory(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                               const model::GpuType& gpu, model::Precision precision, int data_parallel)
{
  const double n = std::max(1, data_parallel);
  const double psi = workload.trainable_params();
  const double element = model::element_bytes(precision);
  const int stage = scenario.zero_stage;

  MemoryEstimate m;
  m.capacity_bytes = gpu.memory_bytes;
  m.parameter_bytes = element * psi / (stage >= 3 ? n : 1.0);
  m.frozen_bytes = element * workload.frozen_params() / (stage >= 3 ? n : 1.0);
  m.gradient_bytes = element * psi / (stage >= 2 ? n : 1.0);
  m.optimizer_bytes = optimizer_state_bytes_per_param(workload.optimizer, precision) * psi / (stage >= 1 ? n : 1.0);

  double largest_recomputed = 0;
  double largest_layer_params = 0;
  for (const auto& layer : workload.layers) {
    if (layer.recomputed)
      largest_recomputed = std::max(largest_recomputed, layer.activation_bytes_per_sample);
    largest_layer_params = std::max(largest_layer_params, layer.trainable_params + layer.frozen_params);
  }
  // Under checkpointing the stored boundaries stay, and one recomputed layer is live at a time.
  m.activation_bytes = scenario.micro_batch_size * (workload.activation_bytes_per_sample(scenario.activation_checkpointing) +
                                                    (scenario.activation_checkpointing ? largest_recomputed : 0.0));
  if (stage >= 3) // the layer in use and the prefetched next one, gathered in full
    m.buffer_bytes = 2.0 * largest_layer_params * element;
  else // a bucket being reduced and the next one filling (DDP / DeepSpeed reduce buckets)
    m.buffer_bytes = 2.0 * std::min(scenario.bucket_bytes, psi * element);
  return m;
}

} // namespace gpuscale::engine
