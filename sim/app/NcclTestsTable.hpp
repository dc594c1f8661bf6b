#pragma once
/// The table nccl-tests prints (all_reduce_perf and its siblings, version 2.13), for a simulated
/// collective: its `#` header, one row per size with the out-of-place columns repeated as in-place
/// ones, and the average bus bandwidth; or the same as JSON.

#include "sim/model/NcclTestsCollective.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpuscale::app {

/// One row: nccl-tests' columns with their units in the names.
struct NcclTestsTableRow {
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  double time_us = 0;
  double algbw_GBps = 0; ///< size / time, GB = 1e9 bytes
  double busbw_GBps = 0; ///< algbw x bus_bandwidth_factor
  std::string algorithm; ///< what the simulation ran for this size
};

/// One device line of `# Using devices`.
struct NcclTestsDevice {
  std::string host;
  int device = 0; ///< index inside its node
  std::string name;
};

struct NcclTestsTable {
  model::NcclTestsCollective op = model::NcclTestsCollective::AllReduce;
  std::string platform_path;
  std::string collective;        ///< as asked (--collective)
  std::string links;             ///< what the links ran at, in words
  std::string network_source;    ///< where that came from, in words
  std::string simgrid;           ///< SimGrid network-model settings
  std::int64_t min_bytes = 0;
  std::int64_t max_bytes = 0;
  int step_factor = 2;
  std::vector<NcclTestsDevice> devices; ///< by rank
  std::vector<NcclTestsTableRow> rows;

  int ranks() const { return static_cast<int>(devices.size()); }
  /// nccl-tests' `# Avg bus bandwidth`: the mean busbw of every row (in-place rows count as well,
  /// and equal the out-of-place ones here); 0 without rows.
  double average_busbw_GBps() const;
};

/// The row of a size that took `time_s`: nccl-tests' algbw = size / time and busbw = algbw x factor,
/// 0 when the time is 0 (nothing to move).
NcclTestsTableRow make_nccl_tests_row(model::NcclTestsCollective op, int ranks, model::NcclTestsSize size,
                                      double time_s, std::string algorithm);

std::string format_nccl_tests_text(const NcclTestsTable& table);
std::string format_nccl_tests_json(const NcclTestsTable& table);

} // namespace gpuscale::app
