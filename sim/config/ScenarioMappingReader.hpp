#pragma once
/// Reading the `scenario:` mapping of an already-parsed YAML document. Internal to the config layer
/// (it exposes yaml-cpp): read_scenario uses it for scenario files, read_sweep for each platform and
/// workload pair of a sweep.

#include "sim/config/ConfigError.hpp"
#include "sim/model/Scenario.hpp"

#include <yaml-cpp/yaml.h>

#include <string>

namespace gpuscale::config {

/// Reads the fields of `scenario_node` (reported under /scenario), then the platform and workload
/// files it names (relative to `path`), and checks they fit together. Diagnostics already in
/// `diagnostics` are kept; throws ConfigError with all of them if there is any.
model::ResolvedScenario read_scenario_mapping(const YAML::Node& scenario_node, const std::string& path,
                                              Diagnostics& diagnostics);

} // namespace gpuscale::config
