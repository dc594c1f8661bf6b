#pragma once
/// What an nccl-tests log must show before a fit may rest on it. A log that passes the reader can still
/// be no measurement: one row fits any fixed cost exactly and says nothing about bandwidth; a time of
/// 1e300 us or a bandwidth beyond every fabric drives the fitted parameters to their bounds and still
/// writes a calibration. Each refusal names the file, the row's line and the rule.
///
/// Rules (per log, over the rows with a size and a time above 0, the rows the fit uses):
///   - at least kMinFittedSizes distinct message sizes (nccl-tests -b 8 -e 128M -f 2 prints 25);
///   - every time between kMinCollectiveTime_s and kMaxCollectiveTime_s: a collective over two GPUs or
///     more costs a kernel launch and a synchronisation (microseconds), and nccl-tests' largest size
///     (8 GiB) over 1 Gb/s Ethernet takes minutes, not hours;
///   - every algorithm bandwidth (size / time) at most kMaxAlgorithmBandwidth_Bps, 20 times the fastest
///     scale-up link (NVLink 5, 900 GB/s per direction).

#include "sim/config/ConfigError.hpp"
#include "sim/config/NcclTestsLogReader.hpp"

namespace gpuscale::config {

inline constexpr std::size_t kMinFittedSizes = 4;
inline constexpr double kMinCollectiveTime_s = 1e-6;
inline constexpr double kMaxCollectiveTime_s = 3600.0;
inline constexpr double kMaxAlgorithmBandwidth_Bps = 20 * 900e9;

/// Adds a located diagnostic to `diagnostics` for every rule the fitted rows of `log` break.
void check_plausible_rows(const NcclTestsLog& log, Diagnostics& diagnostics);

} // namespace gpuscale::config
