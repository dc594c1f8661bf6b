#pragma once
/// gpuscale results files (HDF5). Layout:
///   /runs                 compound table, one row per run (RunRecord), PyTables-compatible so
///                         pandas.read_hdf(path, "runs") and h5py both read it;
///                         attributes: schema_version, gpuscale_version
///   /scenarios/run_<id>   the scenario text of each run (string dataset), attribute simgrid_config
/// Writes are crash-safe: the new content goes to a temporary file in the same directory that
/// replaces the old file by rename() only once complete, so a reader (or a crash) sees either the old
/// file or the new one, never a half-written row.

#include "sim/results/RunRecord.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace gpuscale::results {

// 2: memory_efficiency and step_overhead_s columns; 3: tp, cp, sequence_parallel, bucket_bytes,
// zero3_prefetch_params, input_pipeline, batch_per_rank, platform_sha256, workload_sha256, gpuscale_version,
// convergence_sha256, executor, and the convergence intervals (samples_to_converge_low/high,
// time_to_train_low/high_min); 4: scale_up_link_fraction, nic_link_fraction and collective_fixed_s
// replace network_efficiency; 5: cuda_graph; 6: tp_comm_overlap; 7: recomputed_blocks, checkpoint_blocks; 8: overlap_comm, zero_hook_s;
// 9: iter_time_low_s, iter_time_high_s, interval_regime, parameter_log_sd, and time_to_train_low/high_min
// become the 80 % interval of the time to train (before: its value at the convergence interval's ends).
// A file of another version is refused, not appended to.
inline constexpr int kSchemaVersion = 10;

/// Thrown for files that cannot be read or written as gpuscale results (corrupt, foreign, newer schema).
class ResultsFileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct RunToWrite {
  RunRecord record;
  std::string scenario_text;
};

class ResultsFileLock;

/// Appends runs to `path`, creating it if missing; assigns run_id. Returns the ids given.
/// If `path` exists but is not a valid results file, throws and leaves it untouched. Holds a
/// ResultsFileLock on the folder from the first read to the rename, so concurrent writers (runs,
/// sweeps, plans, merges) queue instead of losing each other's rows. A write that fails (full disk,
/// file size limit) throws ResultsFileError naming the cause and leaves the file as it was.
std::vector<std::int64_t> append_runs(const std::string& path, std::vector<RunToWrite> runs,
                                      const std::string& gpuscale_version);

/// The same, for a caller that already holds the lock of `path`'s folder (std::logic_error if
/// `lock` is another folder's).
std::vector<std::int64_t> append_runs(const std::string& path, std::vector<RunToWrite> runs,
                                      const std::string& gpuscale_version, const ResultsFileLock& lock);

/// Throws ResultsFileError, as append_runs would, if `path` exists and is not a results file of this
/// schema (an empty file, another format, a corrupt or newer file): called before a simulation, so
/// that its result is not computed only to be refused.
void check_appendable(const std::string& path);

/// All rows, in file order.
std::vector<RunRecord> read_runs(const std::string& path);

/// The scenario text stored with run `run_id`.
std::string read_scenario_text(const std::string& path, std::int64_t run_id);

/// A record as the bytes of one /runs row (the column table's fixed layout; strings truncated to
/// their column width as in the file), for passing records between processes and journals.
std::string encode_run_record(const RunRecord& record);

/// The /runs column names, in column order (what docs/RESULTS.md must document).
std::vector<std::string> run_column_names();

/// Inverse of encode_run_record. Throws ResultsFileError if `bytes` is not one row of this layout.
RunRecord decode_run_record(const std::string& bytes);

} // namespace gpuscale::results
