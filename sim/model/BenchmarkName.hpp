#pragma once
/// The one mapping between the names a benchmark goes by: gpuscale's benchmark names (the MLPerf
/// Training folder names: bert, llama2_70b_lora, resnet, retinanet, stable_diffusion), the MLPerf names
/// that differ (ssd is retinanet) and the workload-trace names the files in workloads/ use
/// (bert-large, llama2-70b-lora, resnet50, retinanet, stable-diffusion).

#include <optional>
#include <string>
#include <string_view>

namespace gpuscale::model {

/// gpuscale's benchmark name for any of the names above; nullopt for a benchmark gpuscale has no
/// workload for (e.g. gpt3).
std::optional<std::string> benchmark_name(std::string_view any_name);

/// The workload trace's name (the stem of its file in workloads/) for a gpuscale benchmark name;
/// nullopt if there is none.
std::optional<std::string> workload_name(std::string_view benchmark);

/// "bert (bert-large), llama2_70b_lora (llama2-70b-lora), ...": for messages listing what is known.
std::string known_benchmark_names();

} // namespace gpuscale::model
