#include "sim/engine/ComputeCostModel.hpp"

#include "sim/engine/ScheduleBuilder.hpp"

#include <algorithm>

namespace gpuscale::engine {
namespace {

constexpr double kFlopPerElement = 4.0;

double tensor_bytes_per_sample(const model::Layer& layer, model::Precision precision)
{
  if (layer.activation_bytes_per_sample > 0)
    return layer.activation_bytes_per_sample;
  return model::element_bytes(precision) * layer.forward_flop_per_sample / kFlopPerElement;
}

} // namespace

bool is_memory_bound_kind(model::LayerKind kind)
{
  using K = model::LayerKind;
  return kind == K::Norm || kind == K::Activation || kind == K::Elementwise || kind == K::Pool || kind == K::Embedding;
}

double forward_bytes_per_sample(const model::Layer& layer, model::Precision precision)
{
  return is_memory_bound_kind(layer.kind) ? 2.0 * tensor_bytes_per_sample(layer, precision) : 0.0;
}

KernelCost forward_kernel(const model::Layer& layer, const model::Scenario& scenario, model::Precision precision,
                          int micro_batch)
{
  const LayerShare share = share_of(layer, scenario, micro_batch);
  KernelCost kernel{share.forward_flop, 0.0, is_memory_bound_kind(layer.kind)};
  if (kernel.memory_bound_kind)
    kernel.bytes = forward_bytes_per_sample(layer, precision) * micro_batch / share.compute_split;
  return kernel;
}

KernelCost backward_kernel(const model::Layer& layer, const model::Scenario& scenario, model::Precision precision,
                           int micro_batch)
{
  const LayerShare share = share_of(layer, scenario, micro_batch);
  KernelCost kernel{share.backward_flop, 0.0, is_memory_bound_kind(layer.kind)};
  if (kernel.memory_bound_kind && layer.backward_flop_per_sample > 0) {
    kernel.bytes = 3.0 * tensor_bytes_per_sample(layer, precision) * micro_batch / share.compute_split;
  }
  return kernel;
}

double kernel_time_s(const KernelCost& kernel, const model::Roofline& roofline)
{
  if (!kernel.memory_bound_kind)
    return kernel.flop / roofline.flop_per_s;
  return roofline.time_s({kernel.flop, kernel.bytes});
}

bool is_memory_limited(const KernelCost& kernel, const model::Roofline& roofline)
{
  return kernel.memory_bound_kind && roofline.memory_limited({kernel.flop, kernel.bytes});
}

} // namespace gpuscale::engine
