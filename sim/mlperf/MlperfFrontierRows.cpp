#include "sim/mlperf/MlperfFrontierRows.hpp"

#include "analysis/frontier/Configuration.hpp"
#include "sim/mlperf/DataPaths.hpp"
#include "sim/config/PlatformReader.hpp"

#include <cmath>
#include <map>
#include <tuple>

namespace gpuscale::mlperf {

std::vector<results::RunRecord> mlperf_frontier_rows(const std::vector<results::MlperfScoreRow>& scores)
{
  const model::Platform catalog = config::read_platform(catalog_path()); // a cluster file importing the catalog
  std::map<std::tuple<std::string, std::string, std::int64_t>, results::RunRecord> best;
  for (const auto& score : scores) {
    if (!std::isfinite(score.score_minutes) || score.score_minutes <= 0 || score.accelerators_total <= 0)
      continue;
    const std::string accelerator = score.accelerator_catalog.empty() ? score.accelerator_model : score.accelerator_catalog;
    results::RunRecord r;
    r.scenario = score.round + "/" + score.submitter + "/" + score.system;
    r.platform = "mlperf " + accelerator;
    r.workload = score.benchmark;
    r.gpu_models = accelerator;
    r.simgrid_config = analysis::kPublishedResult;
    r.gpus = score.accelerators_total;
    r.nodes = score.nodes;
    r.global_batch_size = score.global_batch_size;
    r.time_to_train_min = score.score_minutes;
    r.ttt_training_min = score.score_minutes;
    r.samples_to_converge = score.mean_samples_to_converge;
    // A published score is a measurement: its interval is the point itself.
    r.samples_to_converge_low = r.samples_to_converge_high = r.samples_to_converge;
    r.time_to_train_low_min = r.time_to_train_high_min = r.time_to_train_min;
    r.samples_per_s = score.mean_throughput_samples_per_s;
    r.iter_time_s = r.samples_per_s > 0 ? score.global_batch_size / r.samples_per_s : 0;
    r.effective_iter_time_s = r.iter_time_s;
    r.compute_time_s = r.iter_time_s; // the published figure has no breakdown: treat the step as busy
    r.host_cores_per_gpu =
        score.host_cores_total > 0 ? static_cast<double>(score.host_cores_total) / score.accelerators_total : 0;
    if (auto it = catalog.gpu_types.find(score.accelerator_catalog); it != catalog.gpu_types.end()) {
      r.gpu_generation = it->second.generation;
      r.tdp_w = it->second.tdp_w;
      r.price_usd_per_gpu_hour = it->second.price_usd_per_hour.value_or(0.0);
      r.peak_flop_per_gpu_s = it->second.peak_for(model::Precision::Bf16).value_or(0.0);
    }
    const auto key = std::make_tuple(r.workload, accelerator, r.gpus);
    auto [slot, inserted] = best.try_emplace(key, r);
    if (!inserted && r.time_to_train_min < slot->second.time_to_train_min)
      slot->second = r;
  }
  std::vector<results::RunRecord> rows;
  for (auto& [_, r] : best) {
    r.run_id = static_cast<std::int64_t>(rows.size() + 1);
    rows.push_back(std::move(r));
  }
  return rows;
}

} // namespace gpuscale::mlperf
