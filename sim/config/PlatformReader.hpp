#pragma once
/// Reads platform files (accelerator catalog, node types, clusters) into model::Platform.

#include "sim/model/Platform.hpp"

#include <string>

namespace gpuscale::config {

/// Reads a cluster file and the catalog files it imports. Throws ConfigError listing every problem
/// (syntax, unknown keys, bad units, unknown or duplicate names, dangling references).
model::Platform read_platform(const std::string& path);

/// Reads a catalog file alone (accelerators: and/or node_types:, as imported by cluster files): the
/// platform returned has catalog entries only. Names a node type uses from another catalog file are
/// not checked here; read_platform checks them.
model::Platform read_platform_catalog(const std::string& path);

} // namespace gpuscale::config
