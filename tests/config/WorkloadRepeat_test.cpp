// Repeat groups in workload traces (workloads/SCHEMA.md, "Repeated blocks"): a group reads as the
// layers it stands for, written out. Bad groups are in tests/data/invalid/workloads/ (repeat_*.yaml).

#include "sim/config/ConfigError.hpp"
#include "sim/config/WorkloadReader.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <string>
#include <vector>

using namespace gpuscale;
namespace fs = std::filesystem;

namespace {

fs::path temp_dir()
{
  const fs::path dir = fs::temp_directory_path() / ("gpuscale-repeat-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string write_temp(const std::string& name, const std::string& text)
{
  const fs::path path = temp_dir() / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string exact(double value)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

/// Every field of a kernel, as text: two kernels are the same exactly when their texts are.
std::string describe(const model::Kernel& kernel)
{
  std::string out = kernel.op_name() + " backward_factor=" + std::to_string(kernel.backward_factor);
  std::visit(
      [&out](const auto& shape) {
        using Shape = std::decay_t<decltype(shape)>;
        if constexpr (std::is_same_v<Shape, model::GemmShape>)
          for (long long value : {shape.m, shape.n, shape.k, shape.batch})
            out += " " + std::to_string(value);
        else if constexpr (std::is_same_v<Shape, model::ConvShape>)
          for (long long value : {shape.h, shape.w, shape.c, shape.k, shape.r, shape.s, shape.stride, shape.pad, shape.groups})
            out += " " + std::to_string(value);
        else if constexpr (std::is_same_v<Shape, model::AttentionShape>) {
          for (long long value : {shape.heads, shape.kv_heads, shape.q, shape.kv, shape.head_dim})
            out += " " + std::to_string(value);
          out += shape.causal ? " causal" : " full";
        } else
          out += " " + std::to_string(shape.elements) + " " + exact(shape.flop_per_element) + " " +
                 exact(shape.bytes_per_element) + (shape.fused ? " fused" : " own");
      },
      kernel.shape);
  return out;
}

/// Every field of every layer, one text per layer.
std::vector<std::string> describe(const model::WorkloadTrace& trace)
{
  std::vector<std::string> out;
  for (const auto& layer : trace.layers) {
    std::string text = layer.name + " " + model::to_string(layer.kind) + " " + exact(layer.trainable_params) + " " +
                       exact(layer.frozen_params) + " " + exact(layer.forward_flop_per_sample) + " " +
                       exact(layer.backward_flop_per_sample) + " " + exact(layer.activation_bytes_per_sample) +
                       (layer.recomputed ? " recomputed " : " kept ") + model::to_string(layer.tensor_parallel) +
                       " " + exact(layer.tp_comm_bytes_per_sample) + " " + exact(layer.cp_comm_bytes_per_sample);
    for (const auto& kernel : layer.kernels)
      text += " | " + describe(kernel);
    out.push_back(text);
  }
  return out;
}

void check_same_trace(const model::WorkloadTrace& expected, const model::WorkloadTrace& actual)
{
  CHECK(expected.name == actual.name);
  CHECK(expected.benchmark == actual.benchmark);
  CHECK(expected.description == actual.description);
  CHECK(expected.precision == actual.precision);
  CHECK(expected.sample == actual.sample);
  CHECK(expected.optimizer == actual.optimizer);
  CHECK(describe(expected) == describe(actual));
}

const std::string kHead = "workload:\n  name: w\n  precision: bf16\n  sample: sequence\n  optimizer: adam\n  layers:\n";

std::string layer(const std::string& name, const std::string& flops)
{
  return "{name: " + name + ", kind: linear, trainable_params: 4, frozen_params: 0, forward_flops_per_sample: \"" + flops +
         " FLOP\", backward_flops_per_sample: \"0 FLOP\", activation_bytes_per_sample: \"2 B\", recomputed: true, "
         "kernels: [{op: gemm, m: 1, n: 1, k: " + std::to_string(std::stoll(flops) / 2) + ", batch: 1, backward_factor: 0}]}";
}

} // namespace

TEST_CASE("config::read_workload reads a repeat group as its block written out, in order", "[config]")
{
  const std::string grouped = write_temp(
      "grouped.yaml", kHead + "    - " + layer("embed", "2") + "\n    - repeat: 3\n      first_index: 1\n      layers:\n" +
                          "        - " + layer("\"blocks.{i}.up\"", "4") + "\n        - " + layer("\"blocks.{i}.down\"", "6") +
                          "\n    - " + layer("head", "8") + "\n");
  std::string flat_layers = "    - " + layer("embed", "2") + "\n";
  for (int i = 1; i <= 3; ++i)
    flat_layers += "    - " + layer("blocks." + std::to_string(i) + ".up", "4") + "\n    - " +
                   layer("blocks." + std::to_string(i) + ".down", "6") + "\n";
  const std::string flat = write_temp("flat.yaml", kHead + flat_layers + "    - " + layer("head", "8") + "\n");

  const auto trace = config::read_workload(grouped);
  REQUIRE(trace.layers.size() == 8);
  CHECK(trace.layers[1].name == "blocks.1.up");
  CHECK(trace.layers[6].name == "blocks.3.down");
  check_same_trace(config::read_workload(flat), trace);
}

TEST_CASE("config::read_workload gives every committed trace exactly the layers of its flat form", "[config]")
{
  // The generator writes every layer out with --flat: the files as they were before repeat groups.
  const fs::path flat_dir = temp_dir() / "flat";
  const std::string source = GPUSCALE_SOURCE_DIR;
  const std::string command = "/usr/bin/python3 " + source + "/workloads/generator/generate_workloads.py --flat --out " +
                              flat_dir.string();
  REQUIRE(std::system(command.c_str()) == 0);
  int traces = 0;
  for (const std::string folder : {"", "megatron-gpt"})
    for (const auto& entry : fs::directory_iterator(fs::path(source) / "workloads" / folder)) {
      if (entry.path().extension() != ".yaml")
        continue;
      INFO(entry.path().filename().string());
      check_same_trace(config::read_workload((flat_dir / folder / entry.path().filename()).string()),
                       config::read_workload(entry.path().string()));
      ++traces;
    }
  CHECK(traces == 18); // the five MLPerf benchmarks, Llama 3.1 8B and 405B, GPT-3 175B, Megatron's ten GPTs
}
