#include "analysis/frontier/ScalingSeries.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace gpuscale::analysis {
namespace {

/// An uneven allocation's per-rank "mb x accum" list with runs of equal shares counted, in the
/// planner's words: "8x m=5 g=16, 8x m=3 g=16"; "uniform" for an even one.
std::string describe_allocation(const std::string& batch_per_rank)
{
  if (batch_per_rank.empty())
    return "uniform";
  std::vector<std::pair<std::string, int>> runs;
  std::size_t start = 0;
  while (start <= batch_per_rank.size()) {
    const std::size_t comma = std::min(batch_per_rank.find(',', start), batch_per_rank.size());
    const std::string share = batch_per_rank.substr(start, comma - start);
    if (!runs.empty() && runs.back().first == share)
      ++runs.back().second;
    else
      runs.emplace_back(share, 1);
    start = comma + 1;
  }
  std::string text;
  for (const auto& [share, count] : runs) {
    const std::size_t x = share.find('x');
    text += (text.empty() ? "" : ", ") + std::to_string(count) + "x m=" + share.substr(0, x) +
            (x == std::string::npos ? "" : " g=" + share.substr(x + 1));
  }
  return text;
}

/// The fields besides workload and platform that make series distinct, as "name value" parts.
std::vector<std::pair<std::string, std::string>> variant_parts(const results::RunRecord& r)
{
  return {{"alloc ", describe_allocation(r.batch_per_rank)},
          {"tp ", std::to_string(r.tp)},
          {"cp ", std::to_string(r.cp)},
          {"SP ", r.sequence_parallel != 0 ? "on" : "off"},
          {"CUDA graph ", r.cuda_graph != 0 ? "on" : "off"},
          {"bucket ", std::to_string(static_cast<long long>(r.bucket_bytes)) + " B"},
          {"prefetch ", std::to_string(static_cast<long long>(r.zero3_prefetch_params))},
          {"input ", r.input_pipeline},
          {"", r.gpu_models},
          {"", r.precision},
          {"ZeRO-", std::to_string(r.zero_stage)},
          {"gbs ", std::to_string(r.global_batch_size)},
          {"mbs ", std::to_string(r.micro_batch_size)},
          {"", r.collective},
          {"ckpt ", r.activation_checkpointing == 0                ? "off"
                    : r.recomputed_blocks < r.checkpoint_blocks ? std::to_string(r.recomputed_blocks) + " blocks"
                                                                : "on"},
          {"", r.simgrid_config},
          {"executor ", r.executor}};
}

} // namespace

std::vector<ScalingSeries> scaling_series(std::vector<Configuration>& configurations)
{
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < configurations.size(); ++i)
    members[configurations[i].series_key].push_back(i);

  // A variant field enters labels only if it differs between series of the same workload and platform.
  std::map<std::string, std::vector<std::set<std::string>>> values_by_pair;
  for (const auto& [key, indices] : members) {
    const auto& r = configurations[indices.front()].run;
    auto& values = values_by_pair[r.workload + "|" + r.platform];
    const auto parts = variant_parts(r);
    values.resize(parts.size());
    for (std::size_t p = 0; p < parts.size(); ++p)
      values[p].insert(parts[p].second);
  }

  std::vector<ScalingSeries> all;
  for (auto& [key, indices] : members) {
    ScalingSeries series;
    series.key = key;
    const auto& first = configurations[indices.front()].run;
    series.workload = first.workload;
    series.platform = first.platform;
    series.label = first.workload + " @ " + first.platform;
    const auto parts = variant_parts(first);
    const auto& values = values_by_pair[first.workload + "|" + first.platform];
    std::string variant;
    for (std::size_t p = 0; p < parts.size(); ++p)
      if (values[p].size() > 1)
        variant += (variant.empty() ? "" : ", ") + parts[p].first + parts[p].second;
    if (!variant.empty())
      series.label += " (" + variant + ")";

    std::stable_sort(indices.begin(), indices.end(), [&](std::size_t a, std::size_t b) {
      return configurations[a].run.gpus < configurations[b].run.gpus;
    });
    std::set<std::int64_t> seen;
    for (std::size_t i : indices)
      if (seen.insert(configurations[i].run.gpus).second)
        series.points.push_back({i, static_cast<int>(configurations[i].run.gpus), configurations[i].time_s, 1, 1, 0});
    const double n0 = series.points.front().gpus;
    const double t0 = series.points.front().time_s;
    std::vector<double> gpus, times;
    for (std::size_t k = 0; k < series.points.size(); ++k) {
      auto& point = series.points[k];
      point.speedup = t0 / point.time_s;
      point.efficiency = t0 * n0 / (point.time_s * point.gpus);
      if (k == 0) {
        point.marginal_gain = std::numeric_limits<double>::quiet_NaN();
      } else {
        const auto& previous = series.points[k - 1];
        point.marginal_gain = (1 / point.time_s - 1 / previous.time_s) / (point.gpus - previous.gpus) / (1 / t0 / n0);
      }
      configurations[point.configuration].speedup = point.speedup;
      configurations[point.configuration].efficiency = point.efficiency;
      configurations[point.configuration].variant = variant;
      gpus.push_back(point.gpus);
      times.push_back(point.time_s);
    }
    series.power_law = fit_power_law(gpus, times);
    series.amdahl = fit_amdahl(gpus, times);
    series.usl = fit_usl(gpus, times);
    all.push_back(std::move(series));
  }
  std::sort(all.begin(), all.end(), [](const ScalingSeries& a, const ScalingSeries& b) { return a.label < b.label; });
  return all;
}

} // namespace gpuscale::analysis
