#pragma once
/// Reads platform files (accelerator catalog, node types, clusters) into model::Platform.

#include "sim/model/Platform.hpp"

#include <string>

namespace gpuscale::config {

/// Reads a cluster file and the catalog files it imports. Throws ConfigError listing every problem
/// (syntax, unknown keys, bad units, unknown or duplicate names, dangling references).
model::Platform read_platform(const std::string& path);

} // namespace gpuscale::config
