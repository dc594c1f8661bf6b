#pragma once
/// Validates any gpuscale input file with the reader for its kind, told apart by its top-level keys:
///   cluster:                        platform (with the catalog files it imports)
///   accelerators: / node_types:     catalog file (entries only)
///   workload:                       workload trace
///   scenario:                       scenario (with sweep: a sweep), with the files it names
///   convergence:                    convergence table
///   host_input:                     host input-pipeline costs
///   calibration:                    calibration (calibration/mlperf.yaml)
///   timings:                        kernel times measured on a GPU (calibration/measured/)
///   *.json with number_of_nodes, accelerators_per_node or accelerator_model_name
///                                   MLPerf system description, mapped onto the catalog as predict maps it
///   other *.json                    MLPerf reference-convergence-point (RCP) file
///   text with ":::MLLOG" lines      MLPerf result log (valid when it is a converged, complete run)

#include "sim/model/Platform.hpp"

#include <string>

namespace gpuscale::config {

enum class InputKind {
  Platform, Catalog, Workload, Scenario, Sweep, Convergence, HostInput, Calibration, KernelTimings, Rcp, MlperfSystem,
  MlperfLog
};

std::string to_string(InputKind kind);

struct CheckedInput {
  InputKind kind = InputKind::Scenario;
  std::string summary; ///< one line on what the file holds, e.g. "platform 'dgx-a100-1node': 8 GPUs in 1 node"
};

/// Reads `path` as its kind says. Throws ConfigError with every problem, located, when it is not a
/// valid input (including when its kind cannot be told). An MLPerf system description is mapped onto
/// `mlperf_catalog` (map_mlperf_system, the rule predict uses) when one is given.
CheckedInput check_input(const std::string& path, const model::Platform* mlperf_catalog = nullptr);

} // namespace gpuscale::config
