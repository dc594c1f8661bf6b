#include "analysis/calibration/RunStartGaps.hpp"

#include "analysis/calibration/CrossValidation.hpp"

#include <algorithm>
#include <map>

namespace gpuscale::analysis {

std::vector<RunStartGap> measure_run_start_gaps(const std::vector<model::MlperfEntry>& entries)
{
  std::map<model::Benchmark, std::vector<double>> gaps_s;
  for (const auto& entry : entries)
    if (entry.median_start_gap_s)
      gaps_s[entry.benchmark].push_back(*entry.median_start_gap_s);
  std::vector<RunStartGap> out;
  for (auto& [benchmark, gaps] : gaps_s) {
    std::sort(gaps.begin(), gaps.end());
    out.push_back({benchmark, interpolated_quantile(gaps, 0.5), static_cast<int>(gaps.size())});
  }
  return out;
}

} // namespace gpuscale::analysis
