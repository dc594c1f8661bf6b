#pragma once
/// The MLPerf Training benchmarks gpuscale models, and the one mapping between the names each goes
/// by: gpuscale's name (the MLPerf Training folder name: bert, llama2_70b_lora, resnet, retinanet,
/// stable_diffusion), the MLPerf names that differ (ssd is retinanet) and the workload-trace names the
/// files in workloads/ use (bert-large, llama2-70b-lora, resnet50, retinanet, stable-diffusion).
/// Inside gpuscale a benchmark is this enum; names appear only where a file, a report or a command
/// line gives them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscale::model {

/// Declared in the order of their names, so that a std::map keyed by Benchmark lists them as one keyed
/// by the name did (calibration files, reports).
enum class Benchmark { Bert, Llama2_70bLora, Resnet, Retinanet, StableDiffusion };

/// gpuscale's name: "bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion".
std::string to_string(Benchmark benchmark);

/// The benchmark of any of the names above; nullopt for a benchmark gpuscale has no workload for
/// (e.g. gpt3).
std::optional<Benchmark> parse_benchmark(std::string_view any_name);

/// The benchmark whose gpuscale name is `name` (only that name: files store it); nullopt otherwise.
std::optional<Benchmark> benchmark_of_name(std::string_view name);

/// The workload trace's name (the stem of its file in workloads/).
std::string workload_name(Benchmark benchmark);

/// Every benchmark, in declaration order.
const std::vector<Benchmark>& all_benchmarks();

/// "bert (bert-large), llama2_70b_lora (llama2-70b-lora), ...": for messages listing what is known.
std::string known_benchmark_names();

} // namespace gpuscale::model
