#include "sim/config/NcclTestsPlausibility.hpp"

#include <fmt/format.h>

#include <set>

namespace gpuscale::config {

void check_plausible_rows(const NcclTestsLog& log, Diagnostics& diagnostics)
{
  std::set<std::int64_t> sizes;
  for (std::size_t i = 0; i < log.rows.size(); ++i) {
    const auto& row = log.rows[i];
    if (row.size_bytes <= 0 || row.time_s <= 0)
      continue; // not fitted
    sizes.insert(row.size_bytes);
    const std::string where = fmt::format("/rows/{}/time", i);
    if (row.time_s < kMinCollectiveTime_s || row.time_s > kMaxCollectiveTime_s)
      diagnostics.add({log.file, row.line, 1, where,
                       fmt::format("implausible time {:.4g} us for {} bytes: a collective takes between {:g} us and "
                                   "{:g} s (a kernel launch at least; nccl-tests' largest size over 1 Gb/s Ethernet "
                                   "at most); is the column in microseconds?",
                                   row.time_s * 1e6, row.size_bytes, kMinCollectiveTime_s * 1e6, kMaxCollectiveTime_s)});
    else if (const double bandwidth = static_cast<double>(row.size_bytes) / row.time_s;
             bandwidth > kMaxAlgorithmBandwidth_Bps)
      diagnostics.add({log.file, row.line, 1, where,
                       fmt::format("implausible: {} bytes in {:.4g} us is {:.4g} GB/s, beyond {:g} GB/s (20 times the "
                                   "fastest scale-up link)",
                                   row.size_bytes, row.time_s * 1e6, bandwidth / 1e9, kMaxAlgorithmBandwidth_Bps / 1e9)});
  }
  if (!sizes.empty() && sizes.size() < kMinFittedSizes) // none: the caller reports that there is nothing to fit
    diagnostics.add({log.file, 0, 0, "/rows",
                     fmt::format("too few points: {} message size(s) with a time above 0; a fit needs at least {} "
                                 "(a fixed cost and a bandwidth, with sizes to spare; nccl-tests -b 8 -e 128M -f 2 "
                                 "prints 25)",
                                 sizes.size(), kMinFittedSizes)});
}

} // namespace gpuscale::config
