#include "sim/results/ResultsFile.hpp"

#include "sim/results/Hdf5Handle.hpp"
#include "sim/results/Hdf5Table.hpp"
#include "sim/results/ResultsFileLock.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace gpuscale::results {
namespace {

namespace fs = std::filesystem;
using hdf5::check_status;
using hdf5::Handle;
using hdf5::read_int_attribute;
using hdf5::write_int_attribute;
using hdf5::write_string_attribute;

hid_t check(hid_t id, const std::string& what) { return hdf5::checked_id(id, what); }

// ---------------------------------------------------------------------------------------------
// The column table: one entry per RunRecord field, in column order. Adding a column is one line
// here (and a schema_version bump if old files must be told apart).

using Column = TableColumn<RunRecord>;

Column text_column(const char* name, std::string RunRecord::*field, std::size_t bytes)
{
  return text_field(name, field, bytes);
}
Column int_column(const char* name, std::int64_t RunRecord::*field) { return int_field(name, field); }
Column real_column(const char* name, double RunRecord::*field) { return real_field(name, field); }

std::string outcome_text(const RunRecord& record) { return to_string(record.outcome); }
void set_outcome(RunRecord& record, const std::string& text)
{
  record.outcome = text == "infeasible" ? Outcome::Infeasible : Outcome::Ok;
}

const std::vector<Column>& columns()
{
  static const std::vector<Column> table{
      int_column("run_id", &RunRecord::run_id),
      text_column("scenario", &RunRecord::scenario, 96),
      text_column("platform", &RunRecord::platform, 96),
      text_column("workload", &RunRecord::workload, 64),
      text_column("gpu_models", &RunRecord::gpu_models, 128),
      text_column("precision", &RunRecord::precision, 8),
      text_column("collective", &RunRecord::collective, 24),
      text_column("collective_used", &RunRecord::collective_used, 24),
      converted_text_field<RunRecord>("outcome", outcome_text, set_outcome, 16),
      text_column("infeasible_reason", &RunRecord::infeasible_reason, 512),
      text_column("simgrid_config", &RunRecord::simgrid_config, 256),
      int_column("gpus", &RunRecord::gpus),
      int_column("nodes", &RunRecord::nodes),
      int_column("global_batch_size", &RunRecord::global_batch_size),
      int_column("micro_batch_size", &RunRecord::micro_batch_size),
      int_column("grad_accum_steps", &RunRecord::grad_accum_steps),
      int_column("zero_stage", &RunRecord::zero_stage),
      int_column("activation_checkpointing", &RunRecord::activation_checkpointing),
      int_column("recomputed_blocks", &RunRecord::recomputed_blocks),
      int_column("checkpoint_blocks", &RunRecord::checkpoint_blocks),
      real_column("compute_efficiency", &RunRecord::compute_efficiency),
      real_column("scale_up_link_fraction", &RunRecord::scale_up_link_fraction),
      real_column("nic_link_fraction", &RunRecord::nic_link_fraction),
      real_column("collective_fixed_s", &RunRecord::collective_fixed_s),
      real_column("memory_efficiency", &RunRecord::memory_efficiency),
      real_column("step_overhead_s", &RunRecord::step_overhead_s),
      real_column("tcp_gamma_bytes", &RunRecord::tcp_gamma_bytes),
      real_column("iter_time_s", &RunRecord::iter_time_s),
      real_column("samples_per_s", &RunRecord::samples_per_s),
      real_column("compute_time_s", &RunRecord::compute_time_s),
      real_column("comm_time_s", &RunRecord::comm_time_s),
      real_column("exposed_comm_s", &RunRecord::exposed_comm_s),
      real_column("bytes_sent_per_gpu", &RunRecord::bytes_sent_per_gpu),
      real_column("mem_per_gpu_bytes", &RunRecord::mem_per_gpu_bytes),
      real_column("mem_capacity_bytes", &RunRecord::mem_capacity_bytes),
      real_column("mem_params_bytes", &RunRecord::mem_params_bytes),
      real_column("mem_frozen_bytes", &RunRecord::mem_frozen_bytes),
      real_column("mem_grads_bytes", &RunRecord::mem_grads_bytes),
      real_column("mem_optimizer_bytes", &RunRecord::mem_optimizer_bytes),
      real_column("mem_activations_bytes", &RunRecord::mem_activations_bytes),
      real_column("mem_buffers_bytes", &RunRecord::mem_buffers_bytes),
      text_column("sweep_id", &RunRecord::sweep_id, 24),
      int_column("sweep_point", &RunRecord::sweep_point),
      text_column("gpu_generation", &RunRecord::gpu_generation, 64),
      real_column("peak_flop_per_gpu_s", &RunRecord::peak_flop_per_gpu_s),
      real_column("tdp_w", &RunRecord::tdp_w),
      real_column("price_usd_per_gpu_hour", &RunRecord::price_usd_per_gpu_hour),
      real_column("host_cores_per_gpu", &RunRecord::host_cores_per_gpu),
      real_column("effective_iter_time_s", &RunRecord::effective_iter_time_s),
      real_column("time_to_train_min", &RunRecord::time_to_train_min),
      real_column("ttt_training_min", &RunRecord::ttt_training_min),
      real_column("ttt_evaluation_min", &RunRecord::ttt_evaluation_min),
      real_column("ttt_overhead_min", &RunRecord::ttt_overhead_min),
      real_column("samples_to_converge", &RunRecord::samples_to_converge),
      int_column("convergence_extrapolated", &RunRecord::convergence_extrapolated),
      real_column("samples_to_converge_low", &RunRecord::samples_to_converge_low),
      real_column("samples_to_converge_high", &RunRecord::samples_to_converge_high),
      real_column("time_to_train_low_min", &RunRecord::time_to_train_low_min),
      real_column("time_to_train_high_min", &RunRecord::time_to_train_high_min),
      int_column("input_bound", &RunRecord::input_bound),
      real_column("host_utilisation", &RunRecord::host_utilisation),
      real_column("host_max_samples_per_s", &RunRecord::host_max_samples_per_s),
      text_column("executor", &RunRecord::executor, 16),
      int_column("tp", &RunRecord::tp),
      int_column("cp", &RunRecord::cp),
      int_column("sequence_parallel", &RunRecord::sequence_parallel),
      real_column("bucket_bytes", &RunRecord::bucket_bytes),
      real_column("zero3_prefetch_params", &RunRecord::zero3_prefetch_params),
      text_column("input_pipeline", &RunRecord::input_pipeline, 48),
      text_column("batch_per_rank", &RunRecord::batch_per_rank, 512),
      text_column("platform_sha256", &RunRecord::platform_sha256, 72),
      text_column("workload_sha256", &RunRecord::workload_sha256, 72),
      text_column("gpuscale_version", &RunRecord::gpuscale_version, 64),
      text_column("convergence_sha256", &RunRecord::convergence_sha256, 72),
      int_column("cuda_graph", &RunRecord::cuda_graph),
      int_column("tp_comm_overlap", &RunRecord::tp_comm_overlap),
      int_column("overlap_comm", &RunRecord::overlap_comm),
      real_column("zero_hook_s", &RunRecord::zero_hook_s),
      real_column("iter_time_low_s", &RunRecord::iter_time_low_s),
      real_column("iter_time_high_s", &RunRecord::iter_time_high_s),
      text_column("interval_regime", &RunRecord::interval_regime, 40),
      real_column("parameter_log_sd", &RunRecord::parameter_log_sd),
      int_column("pp", &RunRecord::pp),
      int_column("virtual_pp", &RunRecord::virtual_pp),
      real_column("pipeline_wait_s", &RunRecord::pipeline_wait_s),
      real_column("pipeline_bytes_per_gpu", &RunRecord::pipeline_bytes_per_gpu),
  };
  return table;
}

const TableLayout& layout()
{
  static const TableLayout computed = table_layout(columns());
  return computed;
}

void encode(const RunRecord& record, char* row) { pack_row(record, columns(), layout(), row); }

RunRecord decode(const char* row) { return unpack_row(row, columns(), layout()); }

// ---------------------------------------------------------------------------------------------
// Thin RAII over HDF5 identifiers.

/// HDF5 prints its error stack to stderr by default; we report our own messages instead.
void silence_hdf5()
{
  static const bool done = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)done;
}

Handle open_file(const std::string& path, unsigned flags)
{
  silence_hdf5();
  if (H5Fis_hdf5(path.c_str()) <= 0)
    throw ResultsFileError(path + ": not an HDF5 file (corrupt, truncated, or another format)");
  Handle file(H5Fopen(path.c_str(), flags, H5P_DEFAULT), H5Fclose);
  if (!file.valid())
    throw ResultsFileError(path + ": cannot open HDF5 file (corrupt or truncated)");
  return file;
}

/// Opens /runs and checks it is ours and of a schema we understand.
Handle open_runs(hid_t file, const std::string& path)
{
  if (H5Lexists(file, "runs", H5P_DEFAULT) <= 0)
    throw ResultsFileError(path + ": not a gpuscale results file (no /runs table)");
  Handle dataset(H5Dopen2(file, "runs", H5P_DEFAULT), H5Dclose);
  if (!dataset.valid())
    throw ResultsFileError(path + ": /runs cannot be opened (corrupt file)");
  if (H5Aexists(dataset.get(), "schema_version") <= 0)
    throw ResultsFileError(path + ": not a gpuscale results file (/runs has no 'schema_version' attribute)");
  const long long version = read_int_attribute(dataset.get(), "schema_version", path);
  if (version != kSchemaVersion)
    throw ResultsFileError(path + ": results schema version " + std::to_string(version) + ", this gpuscale reads " +
                           std::to_string(kSchemaVersion));
  if (!has_layout(dataset.get(), layout()))
    throw ResultsFileError(path + ": /runs has unexpected columns for schema version " + std::to_string(version));
  return dataset;
}

hsize_t row_count(hid_t dataset)
{
  Handle space(H5Dget_space(dataset), H5Sclose);
  hsize_t rows = 0;
  H5Sget_simple_extent_dims(space.get(), &rows, nullptr);
  return rows;
}

Handle create_runs(hid_t file, const std::string& version)
{
  Handle dataset(create_table(file, "runs", "gpuscale runs", layout(), 0, kSchemaVersion, version), H5Dclose);
  Handle group(check(H5Gcreate2(file, "scenarios", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "cannot create /scenarios"),
               H5Gclose);
  return dataset;
}

void write_scenario_text(hid_t file, std::int64_t run_id, const RunToWrite& run)
{
  Handle group(H5Gopen2(file, "scenarios", H5P_DEFAULT), H5Gclose);
  if (!group.valid())
    throw ResultsFileError("results file has no /scenarios group");
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  const std::string name = "run_" + std::to_string(run_id);
  Handle dataset(check(H5Dcreate2(group.get(), name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                       "cannot create /scenarios/" + name),
                 H5Dclose);
  const char* text = run.scenario_text.c_str();
  check_status(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text), "cannot write scenario text");
  write_string_attribute(dataset.get(), "simgrid_config", run.record.simgrid_config);
}

/// Writes the file's data to the disk; false (errno set) when the disk refuses it (a full disk can
/// surface only here, on file systems that delay allocation).
bool fsync_path(const fs::path& path)
{
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  const bool synced = ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  errno = error;
  return synced;
}

/// A write of the temporary copy failed (disk full, file size limit, I/O error): the original is
/// untouched and the copy is removed by the caller.
[[noreturn]] void throw_write_failure(const std::string& path, int error)
{
  const std::string reason = error == ENOSPC   ? "the disk is full (No space left on device)"
                             : error == EDQUOT ? "the disk quota is exceeded"
                             : error == EFBIG  ? "the file size limit is reached (File too large)"
                             : error != 0      ? std::strerror(error)
                                               : "the HDF5 library reported a write error";
  throw ResultsFileError(path + ": cannot write the results file: " + reason + "; nothing was written");
}

/// The copy a writer appends to; a failure to copy is a failure to write. A plain read/write loop
/// rather than std::filesystem::copy_file, whose sendfile() path reports a full disk as EIO.
void copy_for_append(const fs::path& from, const fs::path& to, const std::string& path)
{
  const int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0)
    throw ResultsFileError(path + ": cannot read the results file: " + std::strerror(errno));
  const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    const int error = errno;
    ::close(in);
    throw_write_failure(path, error);
  }
  std::vector<char> buffer(1 << 20);
  int error = 0;
  while (error == 0) {
    const ssize_t got = ::read(in, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0) {
      error = got < 0 ? errno : 0;
      break;
    }
    for (ssize_t done = 0; done < got;) {
      const ssize_t put = ::write(out, buffer.data() + done, static_cast<std::size_t>(got - done));
      if (put < 0 && errno == EINTR)
        continue;
      if (put <= 0) {
        error = put < 0 ? errno : ENOSPC;
        break;
      }
      done += put;
    }
  }
  ::close(in);
  if (::close(out) != 0 && error == 0)
    error = errno;
  if (error != 0) {
    std::error_code ignored;
    fs::remove(to, ignored);
    throw_write_failure(path, error);
  }
}

/// Makes a rename in `directory` durable (the new directory entry reaches the disk).
void fsync_directory(const fs::path& directory)
{
  const int fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

/// Removes ".<name>.tmp.<pid>" copies left by writers that were killed before their rename (each is a
/// whole copy of the results file); a live writer's copy is left alone.
void remove_stale_temporaries(const fs::path& target)
{
  const std::string prefix = "." + target.filename().string() + ".tmp.";
  const fs::path directory = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code error;
  for (fs::directory_iterator it(directory, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    const std::string pid_text = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : "";
    if (pid_text.empty() || pid_text.size() > 9 || pid_text.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(pid_text));
    if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

} // namespace

std::vector<std::int64_t> append_runs(const std::string& path, std::vector<RunToWrite> runs,
                                      const std::string& gpuscale_version)
{
  const ResultsFileLock lock(path);
  return append_runs(path, std::move(runs), gpuscale_version, lock);
}

std::vector<std::int64_t> append_runs(const std::string& path, std::vector<RunToWrite> runs,
                                      const std::string& gpuscale_version, const ResultsFileLock& lock)
{
  if (!lock.covers(path))
    throw std::logic_error("append_runs: the lock held is not the one of " + path);
  silence_hdf5();
  const fs::path target(path);
  const fs::path temporary = target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
  const bool existed = fs::exists(target);
  remove_stale_temporaries(target);
  if (existed) { // validate before copying: a foreign or corrupt file is reported, never replaced
    Handle file = open_file(path, H5F_ACC_RDONLY);
    open_runs(file.get(), path);
  }
  std::vector<std::int64_t> ids;
  try {
    Handle file;
    Handle dataset;
    if (existed) {
      copy_for_append(target, temporary, path);
      file = open_file(temporary.string(), H5F_ACC_RDWR);
      dataset = open_runs(file.get(), path);
    } else {
      file = Handle(check(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                          "cannot create " + temporary.string()),
                    H5Fclose);
      dataset = create_runs(file.get(), gpuscale_version);
    }
    const hsize_t old_rows = row_count(dataset.get());
    std::vector<char> buffer(layout().row_bytes * runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      runs[i].record.run_id = static_cast<std::int64_t>(old_rows + i + 1);
      ids.push_back(runs[i].record.run_id);
      encode(runs[i].record, buffer.data() + i * layout().row_bytes);
      write_scenario_text(file.get(), runs[i].record.run_id, runs[i]);
    }
    write_rows(dataset.get(), layout(), buffer.data(), old_rows, runs.size());
    write_string_attribute(dataset.get(), "gpuscale_version", gpuscale_version);
    errno = 0;
    if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0)
      throw_write_failure(path, errno);
    dataset = Handle();
    errno = 0;
    if (H5Fclose(file.release()) < 0)
      throw_write_failure(path, errno);
    if (!fsync_path(temporary))
      throw_write_failure(path, errno);
    std::error_code renamed;
    fs::rename(temporary, target, renamed);
    if (renamed)
      throw_write_failure(path, renamed.value());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  fsync_directory(target.parent_path());
  return ids;
}

void check_appendable(const std::string& path)
{
  std::error_code error;
  if (!std::filesystem::exists(path, error))
    return;
  Handle file = open_file(path, H5F_ACC_RDONLY);
  (void)open_runs(file.get(), path);
}

std::vector<RunRecord> read_runs(const std::string& path)
{
  Handle file = open_file(path, H5F_ACC_RDONLY);
  Handle dataset = open_runs(file.get(), path);
  std::size_t rows = 0;
  const std::vector<char> buffer = read_rows(dataset.get(), layout(), rows, path + ": cannot read /runs (corrupt file)");
  std::vector<RunRecord> records;
  records.reserve(rows);
  for (std::size_t i = 0; i < rows; ++i)
    records.push_back(decode(buffer.data() + i * layout().row_bytes));
  return records;
}

std::string encode_run_record(const RunRecord& record)
{
  std::string bytes(layout().row_bytes, '\0');
  encode(record, bytes.data());
  return bytes;
}

std::vector<std::string> run_column_names()
{
  std::vector<std::string> names;
  for (const auto& c : columns())
    names.emplace_back(c.name);
  return names;
}

RunRecord decode_run_record(const std::string& bytes)
{
  if (bytes.size() != layout().row_bytes)
    throw ResultsFileError("encoded run record has " + std::to_string(bytes.size()) + " bytes, expected " +
                           std::to_string(layout().row_bytes));
  return decode(bytes.data());
}

std::string read_scenario_text(const std::string& path, std::int64_t run_id)
{
  Handle file = open_file(path, H5F_ACC_RDONLY);
  const std::string name = "/scenarios/run_" + std::to_string(run_id);
  if (H5Lexists(file.get(), "scenarios", H5P_DEFAULT) <= 0 || H5Lexists(file.get(), name.c_str(), H5P_DEFAULT) <= 0)
    throw ResultsFileError(path + ": no scenario text for run " + std::to_string(run_id));
  Handle dataset(H5Dopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type.get(), H5T_VARIABLE);
  char* text = nullptr;
  check_status(H5Dread(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &text), path + ": cannot read " + name);
  std::string value = text != nullptr ? text : "";
  Handle space(H5Dget_space(dataset.get()), H5Sclose);
  H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, &text);
  return value;
}

} // namespace gpuscale::results
