#include "sim/config/WorkloadReader.hpp"

#include "sim/config/LayerListReader.hpp"
#include "sim/config/MappingReader.hpp"
#include "sim/config/MlperfLogReader.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/model/Benchmark.hpp"

namespace gpuscale::config {

model::WorkloadTrace read_workload(const std::string& path)
{
  Diagnostics diagnostics;
  model::WorkloadTrace trace;
  if (auto root = load_yaml_file(path, diagnostics)) {
    MappingReader top(*root, path, "", diagnostics);
    if (auto workload_node = top.child("workload", Presence::Required)) {
      MappingReader workload(*workload_node, path, "/workload", diagnostics);
      trace.name = workload.identifier("name", Presence::Required).value_or("");
      if (const auto name = workload.identifier("benchmark", Presence::Optional); name && !name->empty()) {
        trace.benchmark = model::benchmark_of_name(*name);
        if (!trace.benchmark)
          workload.error("benchmark", "unknown benchmark '" + *name +
                                          "' (known: bert, llama2_70b_lora, resnet, retinanet, stable_diffusion)");
      }
      if (const auto name = workload.identifier("efficiency_benchmark", Presence::Optional); name && !name->empty()) {
        trace.efficiency_benchmark = model::benchmark_of_name(*name);
        if (!trace.efficiency_benchmark)
          workload.error("efficiency_benchmark", "unknown benchmark '" + *name + "' (known: " +
                                                     model::known_benchmark_names() + ")");
      }
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
          layers && expect_sequence(*layers, path, "/workload/layers", diagnostics))
        trace.layers = read_layer_list(*layers, path, "/workload/layers", diagnostics);
      workload.finish();
    }
    top.finish();
  }
  diagnostics.throw_if_any();
  return trace;
}

} // namespace gpuscale::config
