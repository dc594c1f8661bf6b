#pragma once
/// Reads a scenario file and the platform and workload it names, and checks they fit together.

#include "sim/model/Scenario.hpp"

#include <string>

namespace gpuscale::config {

/// Reads `path` and the files it references (paths relative to the scenario file). Throws
/// ConfigError with every problem: bad fields, a GPU count the platform does not have, batch sizes
/// that do not divide, a precision no GPU of the platform supports.
model::ResolvedScenario read_scenario(const std::string& path);

} // namespace gpuscale::config
