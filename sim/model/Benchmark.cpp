#include "sim/model/Benchmark.hpp"

#include <array>
#include <stdexcept>

namespace gpuscale::model {
namespace {

struct Names {
  Benchmark benchmark;
  std::string_view name;       ///< gpuscale's, = the MLPerf Training results folder name
  std::string_view workload;   ///< the trace's name in workloads/
  std::string_view also_known; ///< another MLPerf name ("" if none)
};

// MLPerf Training v4.1 benchmark folders; ssd is the v3.x name of the RetinaNet benchmark.
constexpr std::array<Names, 5> kNames{{{Benchmark::Bert, "bert", "bert-large", ""},
                                       {Benchmark::Llama2_70bLora, "llama2_70b_lora", "llama2-70b-lora", ""},
                                       {Benchmark::Resnet, "resnet", "resnet50", ""},
                                       {Benchmark::Retinanet, "retinanet", "retinanet", "ssd"},
                                       {Benchmark::StableDiffusion, "stable_diffusion", "stable-diffusion", ""}}};

const Names& names_of(Benchmark benchmark)
{
  for (const auto& names : kNames)
    if (names.benchmark == benchmark)
      return names;
  throw std::logic_error("benchmark without names");
}

} // namespace

std::string to_string(Benchmark benchmark) { return std::string(names_of(benchmark).name); }

std::optional<Benchmark> parse_benchmark(std::string_view any_name)
{
  for (const auto& names : kNames)
    if (any_name == names.name || any_name == names.workload ||
        (!names.also_known.empty() && any_name == names.also_known))
      return names.benchmark;
  return std::nullopt;
}

std::optional<Benchmark> benchmark_of_name(std::string_view name)
{
  for (const auto& names : kNames)
    if (name == names.name)
      return names.benchmark;
  return std::nullopt;
}

std::string workload_name(Benchmark benchmark) { return std::string(names_of(benchmark).workload); }

const std::vector<Benchmark>& all_benchmarks()
{
  static const std::vector<Benchmark> benchmarks = [] {
    std::vector<Benchmark> all;
    for (const auto& names : kNames)
      all.push_back(names.benchmark);
    return all;
  }();
  return benchmarks;
}

std::string known_benchmark_names()
{
  std::string text;
  for (const auto& names : kNames) {
    text += text.empty() ? "" : ", ";
    text += names.name;
    if (names.workload != names.name)
      text += " (" + std::string(names.workload) + ")";
  }
  return text;
}

} // namespace gpuscale::model
