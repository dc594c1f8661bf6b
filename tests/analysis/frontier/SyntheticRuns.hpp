#pragma once
// Results rows built from closed forms, so the analysis can be checked without running simulations.

#include "sim/results/RunRecord.hpp"

#include <cmath>
#include <string>
#include <vector>

namespace gpuscale::testing {

/// A feasible row whose time to train follows the Universal Scalability Law
///   T(N) = T1 (1 + sigma (N-1) + kappa N (N-1)) / N.
inline results::RunRecord usl_run(const std::string& workload, const std::string& platform, int gpus, double t1_s,
                                  double sigma, double kappa, double price_usd_per_gpu_hour, double tdp_w,
                                  double peak_flop_per_s, double host_cores_per_gpu)
{
  results::RunRecord r;
  r.scenario = "synthetic";
  r.workload = workload;
  r.platform = platform;
  r.gpu_models = platform + "-gpu";
  r.precision = "bf16";
  r.collective = "auto";
  r.collective_used = "ring_flow";
  r.outcome = results::Outcome::Ok;
  r.gpus = gpus;
  r.nodes = (gpus + 7) / 8;
  r.global_batch_size = 1024;
  r.micro_batch_size = 4;
  r.grad_accum_steps = 1024 / (4 * gpus);
  const double n = gpus;
  const double ttt_s = t1_s * (1 + sigma * (n - 1) + kappa * n * (n - 1)) / n;
  r.time_to_train_min = ttt_s / 60;
  r.iter_time_s = ttt_s / 1000; // 1000 steps
  r.effective_iter_time_s = r.iter_time_s;
  r.compute_time_s = r.iter_time_s * t1_s / n / ttt_s; // the ideal share computes, the rest waits
  r.samples_per_s = 1024 / r.iter_time_s;
  r.price_usd_per_gpu_hour = price_usd_per_gpu_hour;
  r.tdp_w = tdp_w;
  r.peak_flop_per_gpu_s = peak_flop_per_s;
  r.host_cores_per_gpu = host_cores_per_gpu;
  r.gpu_generation = platform == "old-cluster" ? "ampere" : "hopper";
  return r;
}

/// Two workloads on two platforms (one without a catalog price), 1..64 GPUs, plus one infeasible row.
inline std::vector<results::RunRecord> synthetic_runs()
{
  std::vector<results::RunRecord> runs;
  for (int gpus = 1; gpus <= 64; gpus *= 2) {
    runs.push_back(usl_run("alpha", "old-cluster", gpus, 36000, 0.01, 0.0002, 1.5, 400, 312e12, 16));
    runs.push_back(usl_run("alpha", "new-cluster", gpus, 12000, 0.03, 0.0005, 3.0, 700, 989e12, 14));
    runs.push_back(usl_run("beta", "old-cluster", gpus, 7200, 0.002, 0.0, 1.5, 400, 312e12, 16));
    runs.push_back(usl_run("beta", "new-cluster", gpus, 2400, 0.05, 0.001, 0.0, 700, 989e12, 14));
  }
  results::RunRecord infeasible = usl_run("gamma", "old-cluster", 8, 1, 0, 0, 1.5, 400, 312e12, 16);
  infeasible.outcome = results::Outcome::Infeasible;
  infeasible.infeasible_reason = "out of memory";
  runs.push_back(infeasible);
  return runs;
}

} // namespace gpuscale::testing
