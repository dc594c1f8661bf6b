#include "sim/config/WorkloadReader.hpp"

#include "sim/config/MappingReader.hpp"
#include "sim/config/MlperfLogReader.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/model/BenchmarkName.hpp"

#include <limits>
#include <set>

namespace gpuscale::config {
namespace {

using units::Dimension;

/// Parameter counts are integers but may exceed 2^53 only in absurd inputs; 10^15 is a generous bound.
constexpr long long kMaxParams = 1'000'000'000'000'000LL;

model::Layer read_layer(MappingReader layer, std::set<std::string>& names)
{
  model::Layer out;
  if (auto name = layer.text("name", Presence::Required)) {
    out.name = *name;
    if (!names.insert(*name).second)
      layer.error("name", "duplicate layer name '" + *name + "'");
  }
  if (auto kind = layer.text("kind", Presence::Required)) {
    if (auto parsed = model::parse_layer_kind(*kind))
      out.kind = *parsed;
    else
      layer.error("kind", "unknown layer kind '" + *kind + "' (known: " + model::known_layer_kinds() + ")");
  }
  out.trainable_params = static_cast<double>(layer.integer("trainable_params", 0, kMaxParams, Presence::Required).value_or(0));
  out.frozen_params = static_cast<double>(layer.integer("frozen_params", 0, kMaxParams, Presence::Required).value_or(0));
  out.forward_flop_per_sample = layer.quantity("forward_flops_per_sample", Dimension::Flop, Presence::Required).value_or(0);
  out.backward_flop_per_sample = layer.quantity("backward_flops_per_sample", Dimension::Flop, Presence::Required).value_or(0);
  out.activation_bytes_per_sample =
      layer.quantity("activation_bytes_per_sample", Dimension::Bytes, Presence::Required).value_or(0);
  out.recomputed = layer.boolean("recomputed", Presence::Required).value_or(false);
  if (auto mode = layer.text("tensor_parallel", Presence::Optional)) {
    if (*mode == "column")
      out.tensor_parallel = model::TensorParallelMode::Column;
    else if (*mode == "row")
      out.tensor_parallel = model::TensorParallelMode::Row;
    else
      layer.error("tensor_parallel", "unknown tensor-parallel mode '" + *mode + "' (known: column, row)");
  }
  out.tp_comm_bytes_per_sample =
      layer.quantity("tp_comm_bytes_per_sample", Dimension::Bytes, Presence::Optional).value_or(0);
  out.cp_comm_bytes_per_sample =
      layer.quantity("cp_comm_bytes_per_sample", Dimension::Bytes, Presence::Optional).value_or(0);
  if (out.tp_comm_bytes_per_sample > 0 && !out.tp_sharded())
    layer.error("tp_comm_bytes_per_sample", "only meaningful on a column or row tensor-parallel layer");
  // A row layer's output is all-reduced across the tensor-parallel group in forward (Megatron-LM's g):
  // without its size that all-reduce would silently move 0 bytes.
  if (out.tensor_parallel == model::TensorParallelMode::Row && !layer.has("tp_comm_bytes_per_sample"))
    layer.error("tensor_parallel", "a row tensor-parallel layer needs 'tp_comm_bytes_per_sample' (the bytes of the "
                                   "forward all-reduce of its output, per sample)");
  layer.finish();
  return out;
}

} // namespace

model::WorkloadTrace read_workload(const std::string& path)
{
  Diagnostics diagnostics;
  model::WorkloadTrace trace;
  if (auto root = load_yaml_file(path, diagnostics)) {
    MappingReader top(*root, path, "", diagnostics);
    if (auto workload_node = top.child("workload", Presence::Required)) {
      MappingReader workload(*workload_node, path, "/workload", diagnostics);
      trace.name = workload.identifier("name", Presence::Required).value_or("");
      trace.benchmark = workload.identifier("benchmark", Presence::Optional).value_or("");
      if (!trace.benchmark.empty() && model::benchmark_name(trace.benchmark) != trace.benchmark)
        workload.error("benchmark", "unknown benchmark '" + trace.benchmark +
                                        "' (known: bert, llama2_70b_lora, resnet, retinanet, stable_diffusion)");
      trace.description = workload.text("description", Presence::Optional).value_or("");
      if (auto precision = workload.text("precision", Presence::Required)) {
        if (auto parsed = model::parse_precision(*precision))
          trace.precision = *parsed;
        else
          workload.error("precision", "unknown precision '" + *precision + "' (known: " + model::known_precisions() + ")");
      }
      trace.sample = workload.text("sample", Presence::Required).value_or("");
      if (auto optimizer = workload.text("optimizer", Presence::Required)) {
        if (auto parsed = model::parse_optimizer(*optimizer))
          trace.optimizer = *parsed;
        else
          workload.error("optimizer", "unknown optimizer '" + *optimizer + "' (known: " + model::known_optimizers() + ")");
      }
      if (auto layers = workload.child("layers", Presence::Required);
          layers && expect_sequence(*layers, path, "/workload/layers", diagnostics)) {
        std::set<std::string> names;
        for (std::size_t i = 0; i < layers->size(); ++i)
          trace.layers.push_back(
              read_layer(MappingReader((*layers)[i], path, "/workload/layers/" + std::to_string(i), diagnostics), names));
      }
      workload.finish();
    }
    top.finish();
  }
  diagnostics.throw_if_any();
  return trace;
}

} // namespace gpuscale::config
