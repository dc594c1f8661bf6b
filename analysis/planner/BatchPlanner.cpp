#include "analysis/planner/BatchPlanner.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <queue>
#include <stdexcept>

namespace gpuscale::analysis {
namespace {

void check_profiles(const std::vector<GpuTypeProfile>& types, int global_batch)
{
  if (global_batch < 1)
    throw std::invalid_argument("plan_batch: global batch must be >= 1");
  for (const auto& type : types) {
    if (type.gpus < 1 || type.max_micro_batch < 0 ||
        static_cast<int>(type.micro_batch_time_s.size()) < type.max_micro_batch)
      throw std::invalid_argument("plan_batch: profile of '" + type.name +
                                  "' needs gpus >= 1 and one time per micro-batch up to the maximum");
    for (int m = 1; m < type.max_micro_batch; ++m)
      if (type.micro_batch_time_s[static_cast<std::size_t>(m)] < type.micro_batch_time_s[static_cast<std::size_t>(m - 1)])
        throw std::invalid_argument("plan_batch: micro-batch times of '" + type.name + "' must be non-decreasing");
  }
}

/// Largest m <= max with fixed + g t(m) <= tau (0 if even m = 1 exceeds it). Binary search: t is monotone.
int capacity(const GpuTypeProfile& type, int accumulation, double tau)
{
  int lo = 0, hi = type.max_micro_batch;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (type.step_time_s(mid, accumulation) <= tau)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/// The smallest step time tau at which every GPU can take >= 1 sample and together they take >= per_micro
/// samples per micro-step; nullopt when no step time is enough.
std::optional<double> smallest_feasible_step_time(const std::vector<GpuTypeProfile>& types, int accumulation,
                                                  long long per_micro)
{
  // Candidate step times: the optimum's maximum is the time of some GPU, i.e. one of these.
  std::vector<double> candidates;
  for (const auto& type : types)
    for (int m = 1; m <= type.max_micro_batch; ++m)
      candidates.push_back(type.step_time_s(m, accumulation));
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  // feasible(tau): every GPU can take >= 1 sample and together they take >= per_micro. Monotone in tau.
  auto feasible = [&](double tau) {
    long long total = 0;
    for (const auto& type : types) {
      const int cap = capacity(type, accumulation, tau);
      if (cap < 1)
        return false;
      total += static_cast<long long>(cap) * type.gpus;
    }
    return total >= per_micro;
  };
  if (candidates.empty() || !feasible(candidates.back()))
    return std::nullopt;
  std::size_t lo = 0, hi = candidates.size() - 1; // smallest feasible index
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (feasible(candidates[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return candidates[lo];
}

/// One GPU of the plan: its type (index into the profiles) and its micro-batch.
struct PlannedGpu {
  std::size_t type = 0;
  int micro = 0;
};

/// Each GPU at its capacity under `tau`, then the excess removed one sample at a time from the GPU that
/// finishes last (never below 1 sample): lowering a micro-batch never raises its time, so the max stays <= tau.
std::vector<PlannedGpu> micro_batches_within(const std::vector<GpuTypeProfile>& types, int accumulation,
                                             long long per_micro, double tau)
{
  std::vector<PlannedGpu> gpus;
  long long total = 0;
  for (std::size_t k = 0; k < types.size(); ++k) {
    const int cap = capacity(types[k], accumulation, tau);
    for (int i = 0; i < types[k].gpus; ++i)
      gpus.push_back({k, cap});
    total += static_cast<long long>(cap) * types[k].gpus;
  }
  auto later = [&](std::size_t a, std::size_t b) {
    const double ta = types[gpus[a].type].step_time_s(gpus[a].micro, accumulation);
    const double tb = types[gpus[b].type].step_time_s(gpus[b].micro, accumulation);
    return ta != tb ? ta < tb : a > b; // max-heap on time, lowest index first among ties
  };
  std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> queue(later);
  for (std::size_t i = 0; i < gpus.size(); ++i)
    queue.push(i);
  while (total > per_micro && !queue.empty()) {
    const std::size_t i = queue.top();
    queue.pop();
    if (gpus[i].micro <= 1)
      continue;
    --gpus[i].micro;
    --total;
    queue.push(i);
  }
  return gpus;
}

/// The plan's shares: per GPU type, the GPUs grouped by micro-batch (largest first), and the step time.
BatchPlan group_into_shares(const std::vector<GpuTypeProfile>& types, int accumulation,
                            const std::vector<PlannedGpu>& gpus)
{
  BatchPlan plan;
  plan.accumulation = accumulation;
  for (std::size_t k = 0; k < types.size(); ++k) {
    std::vector<int> micros;
    for (const auto& gpu : gpus)
      if (gpu.type == k)
        micros.push_back(gpu.micro);
    std::sort(micros.rbegin(), micros.rend());
    for (std::size_t i = 0; i < micros.size();) {
      std::size_t j = i;
      while (j < micros.size() && micros[j] == micros[i])
        ++j;
      plan.shares.push_back({types[k].name, static_cast<int>(j - i), micros[i], accumulation});
      plan.predicted_time_s = std::max(plan.predicted_time_s, types[k].step_time_s(micros[i], accumulation));
      i = j;
    }
  }
  return plan;
}

/// The best plan with `accumulation` micro-batches of `per_micro` samples in total per micro-step.
std::optional<BatchPlan> plan_for_accumulation(const std::vector<GpuTypeProfile>& types, int accumulation,
                                               long long per_micro)
{
  const std::optional<double> tau = smallest_feasible_step_time(types, accumulation, per_micro);
  if (!tau)
    return std::nullopt;
  return group_into_shares(types, accumulation, micro_batches_within(types, accumulation, per_micro, *tau));
}

} // namespace

double GpuTypeProfile::step_time_s(int micro_batch, int accumulation) const
{
  return step_fixed_s + accumulation * micro_batch_time_s.at(static_cast<std::size_t>(micro_batch - 1));
}

int BatchPlan::samples() const
{
  int total = 0;
  for (const auto& share : shares)
    total += share.gpus * share.micro_batch * share.accumulation;
  return total;
}

std::vector<BatchPlan> plan_batch(const std::vector<GpuTypeProfile>& types, int global_batch)
{
  check_profiles(types, global_batch);
  std::vector<BatchPlan> plans;
  if (types.empty())
    return plans;
  long long gpus = 0, capacity_all = 0;
  for (const auto& type : types) {
    gpus += type.gpus;
    capacity_all += static_cast<long long>(type.gpus) * type.max_micro_batch;
  }
  for (int g = 1; g <= global_batch; ++g) {
    if (global_batch % g != 0)
      continue;
    const long long per_micro = global_batch / g;
    if (per_micro < gpus)
      break; // g only grows: every GPU needs a sample per micro-batch
    if (per_micro > capacity_all)
      continue;
    if (auto plan = plan_for_accumulation(types, g, per_micro))
      plans.push_back(std::move(*plan));
  }
  // Sorted by predicted time; times within 1e-9 of the fastest's (rounding) count as ties, which keep
  // the order of g (stable sort): fewer micro-batches first, as they communicate less under ZeRO-2/3.
  if (plans.empty())
    return plans;
  double fastest_s = plans.front().predicted_time_s;
  for (const auto& plan : plans)
    fastest_s = std::min(fastest_s, plan.predicted_time_s);
  const double quantum_s = std::max(fastest_s * 1e-9, 1e-15);
  auto key = [quantum_s](const BatchPlan& plan) { return std::llround(plan.predicted_time_s / quantum_s); };
  std::stable_sort(plans.begin(), plans.end(), [&](const BatchPlan& a, const BatchPlan& b) { return key(a) < key(b); });
  return plans;
}

BatchPlan uniform_plan(const std::vector<GpuTypeProfile>& types, int global_batch)
{
  check_profiles(types, global_batch);
  BatchPlan plan;
  if (types.empty())
    return plan;
  long long gpus = 0;
  int smallest_max = types.front().max_micro_batch;
  for (const auto& type : types) {
    gpus += type.gpus;
    smallest_max = std::min(smallest_max, type.max_micro_batch);
  }
  for (int m = smallest_max; m >= 1; --m) {
    if (global_batch % (m * gpus) != 0)
      continue;
    plan.accumulation = static_cast<int>(global_batch / (m * gpus));
    for (const auto& type : types) {
      plan.shares.push_back({type.name, type.gpus, m, plan.accumulation});
      plan.predicted_time_s = std::max(plan.predicted_time_s, type.step_time_s(m, plan.accumulation));
    }
    return plan;
  }
  return plan;
}

} // namespace gpuscale::analysis
