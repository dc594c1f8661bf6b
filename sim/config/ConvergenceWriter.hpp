#pragma once
/// Writes convergence tables (workloads/convergence/<benchmark>.yaml) and regenerates them from
/// MLPerf RCP files: the one command that keeps the committed tables reproducible.

#include "sim/model/ConvergenceTable.hpp"

#include <string>

namespace gpuscale::config {

/// The YAML text of `table`, in the canonical form the committed tables have (header comment with
/// the source, fixed key order, numbers in their shortest round-trip form, times in seconds).
/// read_convergence_text(format_convergence_yaml(t)) == t for every valid table.
std::string format_convergence_yaml(const model::ConvergenceTable& table);

/// What to regenerate a table from.
struct ConvergenceRegeneration {
  std::string rcp_json_path;      ///< e.g. ../shared/mlperf/rcps/training_4.1.0/rcps_bert.json
  std::string benchmark;          ///< gpuscale's benchmark name; must equal the template's
  /// Table whose hand-maintained fields (unit, dataset size, evaluation, overhead, source) are kept;
  /// normally the committed table itself. write_convergence_yaml reads the output path when empty.
  std::string template_yaml_path;
};

/// The template table with its points recomputed from the RCP file (olympic mean per batch size)
/// and its rcp_file set to "<RCP folder name>/<file name>" of `rcp_json_path`. Throws ConfigError
/// if either file is invalid, the benchmark differs from the template's, or the RCP file's
/// "Benchmark" differs from the template's rcp_benchmark.
model::ConvergenceTable regenerate_convergence(const ConvergenceRegeneration& request);

/// regenerate_convergence(), formatted, written to `output_path` (through a temporary file in the
/// same folder and a rename, so a failure leaves any old file as it was). Throws ConfigError.
void write_convergence_yaml(const ConvergenceRegeneration& request, const std::string& output_path);

} // namespace gpuscale::config
