#include "sim/model/WorkloadTrace.hpp"

#include "sim/model/EnumNames.hpp"

#include <array>
#include <numeric>
#include <utility>

namespace gpuscale::model {
namespace {

constexpr std::array kLayerKinds{
    std::pair{LayerKind::Embedding, "embedding"},     std::pair{LayerKind::Conv, "conv"},
    std::pair{LayerKind::Linear, "linear"},           std::pair{LayerKind::Attention, "attention"},
    std::pair{LayerKind::Norm, "norm"},               std::pair{LayerKind::Activation, "activation"},
    std::pair{LayerKind::Pool, "pool"},               std::pair{LayerKind::Elementwise, "elementwise"},
    std::pair{LayerKind::Loss, "loss"},               std::pair{LayerKind::LoraLinear, "lora_linear"},
    std::pair{LayerKind::Other, "other"},
};

constexpr std::array kOptimizers{
    std::pair{Optimizer::Adam, "adam"}, std::pair{Optimizer::Lamb, "lamb"},
    std::pair{Optimizer::SgdMomentum, "sgd_momentum"},
};

template <typename Field>
double sum_over(const std::vector<Layer>& layers, Field field)
{
  return std::accumulate(layers.begin(), layers.end(), 0.0,
                         [&](double total, const Layer& layer) { return total + field(layer); });
}

} // namespace

std::string to_string(LayerKind kind) { return name_of(kLayerKinds, kind); }
std::optional<LayerKind> parse_layer_kind(std::string_view name) { return value_of(kLayerKinds, name); }
std::string known_layer_kinds() { return list_of(kLayerKinds); }

std::string to_string(TensorParallelMode mode)
{
  switch (mode) {
    case TensorParallelMode::Replicated: return "replicated";
    case TensorParallelMode::Column: return "column";
    case TensorParallelMode::Row: return "row";
  }
  return "?";
}

std::string to_string(Optimizer optimizer) { return name_of(kOptimizers, optimizer); }
std::optional<Optimizer> parse_optimizer(std::string_view name) { return value_of(kOptimizers, name); }
std::string known_optimizers() { return list_of(kOptimizers); }

double WorkloadTrace::trainable_params() const
{
  return sum_over(layers, [](const Layer& l) { return l.trainable_params; });
}

double WorkloadTrace::frozen_params() const
{
  return sum_over(layers, [](const Layer& l) { return l.frozen_params; });
}

double WorkloadTrace::forward_flop_per_sample() const
{
  return sum_over(layers, [](const Layer& l) { return l.forward_flop_per_sample; });
}

double WorkloadTrace::backward_flop_per_sample() const
{
  return sum_over(layers, [](const Layer& l) { return l.backward_flop_per_sample; });
}

double WorkloadTrace::activation_bytes_per_sample(bool checkpointing) const
{
  return sum_over(layers, [&](const Layer& l) {
    return checkpointing && l.recomputed ? 0.0 : l.activation_bytes_per_sample;
  });
}

double WorkloadTrace::recompute_flop_per_sample() const
{
  return sum_over(layers, [](const Layer& l) { return l.recomputed ? l.forward_flop_per_sample : 0.0; });
}

} // namespace gpuscale::model
