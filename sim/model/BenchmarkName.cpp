#include "sim/model/BenchmarkName.hpp"

#include <array>

namespace gpuscale::model {
namespace {

struct Names {
  std::string_view benchmark;  ///< gpuscale's, = the MLPerf Training results folder name
  std::string_view workload;   ///< the trace's name in workloads/
  std::string_view also_known; ///< another MLPerf name ("" if none)
};

// MLPerf Training v4.1 benchmark folders; ssd is the v3.x name of the RetinaNet benchmark.
constexpr std::array<Names, 5> kNames{{{"bert", "bert-large", ""},
                                       {"llama2_70b_lora", "llama2-70b-lora", ""},
                                       {"resnet", "resnet50", ""},
                                       {"retinanet", "retinanet", "ssd"},
                                       {"stable_diffusion", "stable-diffusion", ""}}};

} // namespace

std::optional<std::string> benchmark_name(std::string_view any_name)
{
  for (const auto& names : kNames)
    if (any_name == names.benchmark || any_name == names.workload ||
        (!names.also_known.empty() && any_name == names.also_known))
      return std::string(names.benchmark);
  return std::nullopt;
}

std::optional<std::string> workload_name(std::string_view benchmark)
{
  for (const auto& names : kNames)
    if (benchmark == names.benchmark)
      return std::string(names.workload);
  return std::nullopt;
}

std::string known_benchmark_names()
{
  std::string text;
  for (const auto& names : kNames) {
    text += text.empty() ? "" : ", ";
    text += names.benchmark;
    if (names.workload != names.benchmark)
      text += " (" + std::string(names.workload) + ")";
  }
  return text;
}

} // namespace gpuscale::model
