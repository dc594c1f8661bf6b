#pragma once
/// The MLPerf import file (`gpuscale mlperf import`): two PyTables tables,
///   /mlperf_runs    one row per result log (status, times, samples), problem text for invalid runs
///   /mlperf_scores  one row per (round, submitter, system, benchmark) with the system's fields
/// pandas.read_hdf(path, "mlperf_scores") reads them. Units are in the column names.

#include <cstdint>
#include <string>
#include <vector>

namespace gpuscale::results {

/// 2: /mlperf_runs gains first_block_ms; 3: training_rate_samples_per_s
inline constexpr int kMlperfSchemaVersion = 3;

struct MlperfRunRow {
  std::string round, submitter, system, benchmark;
  std::string result_file; ///< file name inside the benchmark folder
  /// success | aborted | no_run_stop | unparsable | incomplete | inconsistent | noncompliant | implausible
  std::string status;
  std::string problem;     ///< "file:line: message" for invalid runs
  double run_start_ms = 0;
  double run_stop_ms = 0;
  double first_block_ms = 0; ///< first block_start / epoch_start; 0 when not logged
  double run_minutes = 0;
  std::int64_t global_batch_size = 0;
  double seed = 0;
  double samples_to_converge = 0;
  double epochs_to_converge = 0;
  double samples_processed = 0;
  double throughput_samples_per_s = 0;
  double training_rate_samples_per_s = 0; ///< once warmed up, between evaluations; 0 when not logged

  bool operator==(const MlperfRunRow&) const = default;
};

struct MlperfScoreRow {
  std::string round, submitter, system, division, status;
  std::string accelerator_model;   ///< accelerator_model_name as written
  std::string accelerator_catalog; ///< gpuscale catalog name, "" if not in the catalog
  std::int64_t accelerators_total = 0;
  std::int64_t nodes = 0;
  std::int64_t accelerators_per_node = 0;
  std::string accelerator_memory;
  std::string host_cpu;
  std::int64_t host_cores_total = 0; ///< 0 when the JSON does not give whole numbers
  std::string interconnect, host_networking, framework;
  std::string benchmark;
  std::int64_t global_batch_size = 0;
  std::int64_t n_runs = 0;
  std::int64_t n_converged = 0;
  double score_minutes = 0; ///< NaN when the entry has no score
  double rcp_scaling_factor = 1; ///< MLCommons' factor on the score (scaling.json), 1 when none
  double score_minutes_scaled = 0; ///< score_minutes x rcp_scaling_factor: the published score
  double median_run_minutes = 0;
  double mean_samples_to_converge = 0;
  double mean_epochs_to_converge = 0;
  double mean_throughput_samples_per_s = 0;

  bool operator==(const MlperfScoreRow&) const = default;
};

/// Writes both tables to a new file at `path` (replaced atomically). Throws ResultsFileError.
void write_mlperf_tables(const std::string& path, const std::vector<MlperfRunRow>& runs,
                         const std::vector<MlperfScoreRow>& scores, const std::string& gpuscale_version);

std::vector<MlperfRunRow> read_mlperf_runs(const std::string& path);
std::vector<MlperfScoreRow> read_mlperf_scores(const std::string& path);
/// The column names of /mlperf_runs and /mlperf_scores, in column order (docs/RESULTS.md documents them).
std::vector<std::string> mlperf_run_column_names();
std::vector<std::string> mlperf_score_column_names();

/// True when `path` is an HDF5 file with a /mlperf_scores table (false for other or unreadable files).
bool has_mlperf_scores(const std::string& path);

} // namespace gpuscale::results
