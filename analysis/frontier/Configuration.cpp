#include "analysis/frontier/Configuration.hpp"

#include "analysis/frontier/TimeMetric.hpp"

#include <cmath>
#include <limits>

namespace gpuscale::analysis {

std::string Configuration::label() const
{
  return run.platform + " x" + std::to_string(run.gpus) + (variant.empty() ? "" : " (" + variant + ")");
}

std::vector<Configuration> feasible_configurations(const std::vector<results::RunRecord>& runs,
                                                   const EnergyModel& energy)
{
  std::vector<Configuration> configurations;
  for (const auto& run : runs) {
    if (run.outcome != results::Outcome::Ok || !(time_s(run) > 0) || run.gpus < 1)
      continue;
    Configuration c;
    c.run = run;
    // Published results scale the batch with the GPU count (submitters tune it per scale), so their
    // series is the benchmark on one accelerator; simulated runs keep the batch in the key.
    const bool published = run.simgrid_config == kPublishedResult;
    c.series_key = run.workload + "|" + run.platform + "|" + run.gpu_models + "|" + run.precision + "|zero" +
                   std::to_string(run.zero_stage) +
                   (published ? std::string() : "|gbs" + std::to_string(run.global_batch_size)) + "|mbs" +
                   std::to_string(run.micro_batch_size) + "|" + run.collective + "|ckpt" +
                   std::to_string(run.activation_checkpointing) + "/" + std::to_string(run.recomputed_blocks) + "|" + run.simgrid_config + "|tp" +
                   std::to_string(run.tp) + "|cp" + std::to_string(run.cp) + "|sp" +
                   std::to_string(run.sequence_parallel) + "|graph" + std::to_string(run.cuda_graph) + "|overlap" +
                   std::to_string(run.overlap_comm) + "|bucket" +
                   std::to_string(run.bucket_bytes) +
                   "|prefetch" + std::to_string(run.zero3_prefetch_params) + "|" + run.input_pipeline + "|" +
                   run.batch_per_rank +
                   // Analytical rows are their own series: the same configuration without contention.
                   (run.executor == "analytical" ? "|analytical" : "");
    c.time_s = time_s(run);
    c.time_low_s = time_low_s(run);
    c.time_high_s = time_high_s(run);
    c.convergence_extrapolated = run.convergence_extrapolated != 0;
    c.gpu_hours = static_cast<double>(run.gpus) * c.time_s / 3600.0;
    c.cost_usd = run.price_usd_per_gpu_hour > 0 ? c.gpu_hours * run.price_usd_per_gpu_hour
                                                : std::numeric_limits<double>::quiet_NaN();
    const bool rated = run.tdp_w > 0; // no board power: no energy, rather than a winning 0 J
    c.energy_kwh = rated ? energy.energy_j(run) / 3.6e6 : std::numeric_limits<double>::quiet_NaN();
    c.power_per_gpu_w = rated ? energy.power_per_gpu_w(run) : std::numeric_limits<double>::quiet_NaN();
    c.throughput_per_gpu = run.samples_per_s / static_cast<double>(run.gpus);
    configurations.push_back(std::move(c));
  }
  return configurations;
}

} // namespace gpuscale::analysis
