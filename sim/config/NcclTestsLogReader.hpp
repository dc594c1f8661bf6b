#pragma once
/// Reads the text output of NVIDIA nccl-tests (all_reduce_perf, reduce_scatter_perf,
/// all_gather_perf, broadcast_perf, alltoall_perf; the format of version 2.13 and its neighbours)
/// as a real run prints it, launcher and NCCL lines included:
///
///   # nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
///   #
///   # Using devices
///   #  Rank  0 Group  0 Pid  40213 on dgx-h100-01 device  0 [0x18] NVIDIA H100 80GB HBM3
///   ...
///   #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
///   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
///              8             2     float     sum      -1    13.00    0.00    0.00      0    13.05    0.00    0.00      0
///   # Out of bounds values : 0 OK
///   # Avg bus bandwidth    : 144.652
///
/// Lines:
///   - `#` lines: the nThread line, the `#  Rank` device lines (one per rank: the number of ranks,
///     the hosts they run on, their device), the column header (after which data rows are read),
///     `# Out of bounds values`, `# Avg bus bandwidth`; other `#` lines are ignored.
///   - data rows: after the column header, every line whose first word is an integer: 13 columns
///     (size count type redop root, then time algbw busbw #wrong out-of-place and again in-place)
///     or 9 (out-of-place only); #wrong is an integer or N/A. A data row that does not read is an
///     error naming its column.
///   - any other line (NCCL INFO, launcher output, a shell prompt) is ignored, except that it may
///     name the program.
///
/// Which collective the log measures:
///   1. the program named anywhere in the log: a word whose last path component is
///      <op>_perf or <op>_perf_mpi (a launcher's echoed command line, a pasted prompt, a header
///      line of later versions that names the program); several different names are an error, and
///      so is one that disagrees with the op the caller gives;
///   2. else the op the caller gives;
///   3. else the columns, where they decide it: root >= 0 with redop none is broadcast; redop sum
///      fits all_reduce and reduce_scatter, and none with root -1 all_gather and alltoall, so those
///      logs need 1. or 2.
/// The rows' redop and root must fit the op (a reduction for all_reduce and reduce_scatter, none
/// otherwise; root -1 except for broadcast).

#include "sim/model/NcclTestsCollective.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::config {

/// The nThread line: how the run was started.
struct NcclTestsSetup {
  int threads = 0;
  int gpus_per_thread = 0;
  std::int64_t min_bytes = 0;
  std::int64_t max_bytes = 0;
  int step_factor = 0;        ///< -f; 0 when the sizes stepped by bytes
  std::int64_t step_bytes = 0; ///< -i; 0 when they stepped by a factor
  int warmup_iters = 0;
  int iters = 0;
  std::optional<int> agg_iters; ///< absent in older versions
  bool validation = false;      ///< -c: #wrong is counted
  std::optional<int> graph;     ///< absent in older versions
};

/// One size (out-of-place columns, SI units).
struct NcclTestsLogRow {
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  double time_s = 0;
  double algbw_Bps = 0;
  double busbw_Bps = 0;
  std::optional<std::int64_t> wrong;   ///< nullopt for N/A
  std::optional<double> in_place_time_s; ///< nullopt when the log has no in-place columns
  int line = 0;
};

struct NcclTestsLog {
  std::string file;
  model::NcclTestsCollective op = model::NcclTestsCollective::AllReduce;
  std::string op_source; ///< how op was decided, in words ("program all_reduce_perf named at line 1")
  int ranks = 0;
  int hosts = 0;
  int ranks_per_host = 0;
  int devices_line = 0;  ///< line of rank 0's `#  Rank` line
  std::string device;    ///< rank 0's device name ("NVIDIA H100 80GB HBM3")
  bool devices_differ = false; ///< some rank runs another device model
  std::string data_type; ///< the type column ("float")
  std::string redop;     ///< the redop column ("sum", "none")
  int root = -1;
  std::optional<NcclTestsSetup> setup;
  std::vector<NcclTestsLogRow> rows;
  std::optional<std::int64_t> out_of_bounds_values;
  std::optional<double> avg_busbw_Bps;
};

/// Parses `text`, the log as read from `file` (named in messages). `op`: the collective the caller
/// knows the log measures, if it does (see the rule above). Throws ConfigError with every problem,
/// each `file:line:col: error: /path: message`.
NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& file,
                                  std::optional<model::NcclTestsCollective> op = std::nullopt);

/// Reads the file at `path` and parses it; an unreadable file is a ConfigError.
NcclTestsLog read_nccl_tests_log(const std::string& path, std::optional<model::NcclTestsCollective> op = std::nullopt);

} // namespace gpuscale::config
