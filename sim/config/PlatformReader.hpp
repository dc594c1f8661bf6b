#pragma once
/// Reads platform files (accelerator catalog, node types, clusters) into model::Platform.

#include "sim/model/Platform.hpp"

#include <string>
#include <vector>

namespace gpuscale::config {

/// The user's own catalog files (`--catalog FILE`, in the catalog schema): every cluster file read after
/// this call takes their accelerators and node types besides the ones it imports or defines inline, and
/// instead of entries of the same name. Process-wide by design: scenario, sweep, plan and predict all reach
/// their platforms through read_platform, and the command line sets this once, before any platform is
/// read (sweep workers are forks and inherit it). Empty by default.
void set_user_catalogs(std::vector<std::string> paths);

/// Reads a cluster file and the catalog files it imports (and the user's catalogs, set_user_catalogs). Throws ConfigError listing every problem
/// (syntax, unknown keys, bad units, unknown or duplicate names, dangling references).
model::Platform read_platform(const std::string& path);

/// Reads a catalog file alone (accelerators: and/or node_types:, as imported by cluster files): the
/// platform returned has catalog entries only. Names a node type uses from another catalog file are
/// not checked here; read_platform checks them.
model::Platform read_platform_catalog(const std::string& path);

} // namespace gpuscale::config
