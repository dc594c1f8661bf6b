#pragma once
/// Heterogeneity-aware batch allocation (Poplar, arXiv 2408.12596): how many samples each GPU type
/// runs per micro-batch so that a data-parallel step finishes soonest. Pure search over profiled
/// costs; knows nothing of SimGrid or YAML. The algorithm and why it is exact are in
/// docs/HETEROGENEITY.md ("The planner").
///
/// Cost model of one GPU of type k running micro-batches of m samples, g per optimizer step:
///   T_k(m, g) = fixed_k + g x t_k(m)          (t_k non-decreasing in m, m <= max_micro_batch_k)
/// and the step takes max over GPUs of T. Communication is not in the model: the caller simulates
/// the best plans in full.

#include <string>
#include <vector>

namespace gpuscale::analysis {

/// What the planner knows about one GPU type of the cluster.
struct GpuTypeProfile {
  std::string name;
  int gpus = 0;            ///< GPUs of this type taking part
  int max_micro_batch = 0; ///< largest micro-batch that fits in memory (0: none fits)
  double step_fixed_s = 0; ///< per-step time not proportional to micro-batches (optimizer step)
  /// [m - 1]: seconds of one micro-batch of m samples, m = 1..max_micro_batch; non-decreasing.
  std::vector<double> micro_batch_time_s;

  /// fixed + g x t(m).
  double step_time_s(int micro_batch, int accumulation) const;
};

/// `gpus` GPUs of `gpu_type` each run `accumulation` micro-batches of `micro_batch` samples.
struct PlannedShare {
  std::string gpu_type;
  int gpus = 0;
  int micro_batch = 0;
  int accumulation = 0;
  bool operator==(const PlannedShare&) const = default;
};

struct BatchPlan {
  int accumulation = 0;          ///< common to every GPU
  double predicted_time_s = 0;   ///< max over GPUs of the cost model above
  std::vector<PlannedShare> shares; ///< in the order of the profiles; within a type, larger micro-batch first

  int samples() const; ///< sum of gpus x micro_batch x accumulation
};

/// For every accumulation count g dividing `global_batch` for which a plan exists, the allocation
/// with the least predicted step time (exact under the cost model); sorted by predicted time, ties
/// (within 1e-9 relative) by fewer micro-batches. Every GPU of every profile gets at least one sample per micro-batch.
/// Empty if no allocation fits. Throws std::invalid_argument on malformed profiles.
std::vector<BatchPlan> plan_batch(const std::vector<GpuTypeProfile>& types, int global_batch);

/// The allocation DeepSpeed uses: one micro-batch size m for every GPU, the largest that fits the
/// smallest memory and divides the batch (global_batch = m x gpus x g). nullopt-like empty shares
/// when there is none.
BatchPlan uniform_plan(const std::vector<GpuTypeProfile>& types, int global_batch);

} // namespace gpuscale::analysis
