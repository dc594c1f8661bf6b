#pragma once
/// Reads an MLPerf Training system description (<submitter>/systems/<system>.json). The format is
/// MLCommons', not gpuscale's: every value is a JSON string, keys gpuscale does not use are ignored.

#include "sim/model/MlperfSystem.hpp"

#include <string>

namespace gpuscale::config {

/// Throws ConfigError, located, when the file is not a JSON object, or number_of_nodes,
/// accelerators_per_node, accelerator_model_name are missing or not what they should be.
/// host_processor_core_count / host_processors_per_node that are not whole numbers read as 0.
model::MlperfSystem read_mlperf_system(const std::string& path);

/// The same for text that came from `display_name`.
model::MlperfSystem read_mlperf_system_text(const std::string& text, const std::string& display_name);

} // namespace gpuscale::config
