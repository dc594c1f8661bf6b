#pragma once
/// Reads an MLCommons Training results repository: every result log of the benchmarks gpuscale
/// models, with its system description, grouped into entries with their scores.
///
/// Two layouts are accepted:
///   gpuscale's shared copy   DIR/systems/<round>/<submitter>__<system>.json
///                            DIR/results/<round>/<submitter>__<system>/<benchmark>/result_*.txt
///   an upstream round repo   DIR/<submitter>/systems/<system>.json
///                            DIR/<submitter>/results/<system>/<benchmark>/result_*.txt
///                            (the round is read from DIR's name, e.g. training_results_v4.1 -> v4.1)
/// Benchmark folders are named as upstream (ssd is retinanet); others (gpt3, dlrm, ...) are skipped.
/// An entry's RCP scaling factor (MlperfScalingReader.hpp) comes from its benchmark folder's
/// scaling.json, else, in the shared layout, from DIR/scores_calibration.csv's rcp_scaling_factor.

#include "sim/model/MlperfRun.hpp"

#include <string>
#include <vector>

namespace gpuscale::config {

struct MlperfImport {
  std::vector<model::MlperfEntry> entries; ///< sorted by round, submitter, system, benchmark
  /// Everything not taken at face value, "file[:line]: message": runs that failed, have no run_stop,
  /// unparsable or missing lines; entries without a system description or score.
  std::vector<std::string> problems;
  int skipped_benchmark_folders = 0; ///< folders of benchmarks gpuscale has no workload for
};

/// Throws ConfigError when `dir` matches neither layout.
MlperfImport read_mlperf_repository(const std::string& dir);

/// Marks runs whose submission_org disagrees with the majority of the entry's runs as Inconsistent
/// (a log whose MLLOG header lines were corrupted shows a placeholder organisation there).
void mark_inconsistent_runs(model::MlperfEntry& entry);

} // namespace gpuscale::config
