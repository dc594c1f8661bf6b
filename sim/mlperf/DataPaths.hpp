#pragma once
/// Where the data files gpuscale ships live (catalog, workload traces, convergence tables, the
/// committed calibration): the repository the binary was built from. A user's own accelerators and node
/// types come in through `--catalog FILE` (CatalogOption.hpp), not by replacing these files.

#include "sim/model/Benchmark.hpp"

#include <string>

namespace gpuscale::mlperf {

/// The source tree this binary was built from.
std::string data_dir();
/// calibration/catalog.yaml: every catalog accelerator and node type (read_platform adds `--catalog` files).
std::string catalog_path();
/// workloads/<file>.yaml of a benchmark (bert -> bert-large.yaml, ...).
std::string workload_path(model::Benchmark benchmark);

} // namespace gpuscale::mlperf
