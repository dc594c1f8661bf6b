#pragma once
/// Where the data files gpuscale ships live (catalog, workload traces, convergence tables, the
/// committed calibration): the repository the binary was built from, or $GPUSCALE_DATA_DIR.

#include <string>

namespace gpuscale::app {

/// $GPUSCALE_DATA_DIR if set, else the source tree this binary was built from.
std::string data_dir();
/// calibration/catalog.yaml: every catalog accelerator and node type.
std::string catalog_path();
/// workloads/<file>.yaml of a benchmark (bert -> bert-large.yaml, ...); throws std::invalid_argument
/// for a benchmark gpuscale has no trace of.
std::string workload_path(const std::string& benchmark);

} // namespace gpuscale::app
