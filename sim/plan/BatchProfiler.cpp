#include "sim/plan/BatchProfiler.hpp"

#include "analysis/planner/MicroBatchCurve.hpp"
#include "sim/engine/MemoryModel.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "sim/model/Roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace gpuscale::plan {
namespace {

/// Seconds the GPU is busy executing `program`: kernels at the host speed the simulation gives the
/// GPU (peak x compute efficiency) plus the memory-bound work it sleeps for.
double busy_time_s(const engine::StepProgram& program, double speed_flop_per_s)
{
  return program.compute_flop / speed_flop_per_s + program.sleep_s;
}

/// 1, 2, 3, 4, 6, 8, 12, 16, 24, ... up to and including `max`.
std::vector<int> probe_sizes(int max)
{
  std::vector<int> sizes;
  for (int p = 1; p <= max; p *= 2) {
    sizes.push_back(p);
    if (p >= 2 && p + p / 2 <= max)
      sizes.push_back(p + p / 2);
  }
  if (sizes.empty() || sizes.back() != max)
    sizes.push_back(max);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

} // namespace

std::vector<std::pair<std::string, int>> gpu_types_of_run(const model::ResolvedScenario& resolved)
{
  std::vector<std::pair<std::string, int>> types;
  for (const auto& use : resolved.platform.groups_used(resolved.scenario.gpus)) {
    const auto& node = resolved.platform.node_type_of_group(use.group);
    auto it = std::find_if(types.begin(), types.end(), [&](const auto& t) { return t.first == node.gpu_type; });
    if (it == types.end())
      types.emplace_back(node.gpu_type, use.gpus);
    else
      it->second += use.gpus;
  }
  return types;
}

model::ResolvedScenario restrict_to_types(const model::ResolvedScenario& resolved, const std::vector<std::string>& types)
{
  model::ResolvedScenario restricted = resolved;
  auto& platform = restricted.platform;
  platform.node_groups.clear();
  int remaining = resolved.scenario.gpus, kept = 0;
  for (std::size_t g = 0; g < resolved.platform.node_groups.size() && remaining > 0; ++g) {
    const auto& node = resolved.platform.node_type_of_group(g);
    const int nodes = std::min(resolved.platform.node_groups[g].count,
                               (remaining + node.gpus_per_node - 1) / node.gpus_per_node);
    const int here = std::min(remaining, nodes * node.gpus_per_node);
    remaining -= here;
    if (std::find(types.begin(), types.end(), node.gpu_type) == types.end())
      continue;
    auto group = resolved.platform.node_groups[g];
    group.count = nodes;
    platform.node_groups.push_back(group);
    kept += here;
  }
  restricted.scenario.gpus = kept;
  restricted.scenario.batch_per_rank.clear();
  // Each kept type keeps its own efficiencies (Scenario::efficiency_by_type); the row reports the
  // first kept type's, as for any run.
  if (!platform.node_groups.empty()) {
    auto& efficiency = restricted.scenario.efficiency;
    const auto& first_type = platform.gpu_type_of(platform.node_type_of_group(0));
    const model::Efficiency& first = resolved.scenario.efficiency_for(first_type);
    efficiency.compute = first.compute;
    efficiency.memory = first.memory;
  }
  return restricted;
}

std::vector<analysis::GpuTypeProfile> profile_gpu_types(const model::ResolvedScenario& resolved, int max_probe)
{
  const auto& s = resolved.scenario;
  const model::Precision precision = resolved.precision();
  std::vector<analysis::GpuTypeProfile> profiles;
  for (const auto& [name, count] : gpu_types_of_run(resolved)) {
    const model::GpuType& gpu = resolved.platform.gpu_types.at(name);
    analysis::GpuTypeProfile profile;
    profile.name = name;
    profile.gpus = count;
    // Memory grows with the micro-batch (activations): bisection for the largest that fits.
    int lo = 0, hi = std::max(1, max_probe);
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (engine::estimate_memory(resolved.workload, s, gpu, precision, s.data_parallel(), mid).fits())
        lo = mid;
      else
        hi = mid - 1;
    }
    profile.max_micro_batch = lo;
    if (lo > 0) {
      // The compute roof, at this type's efficiencies.
      const double speed = model::peak_rates_of(gpu, precision).at(s.efficiency_for(gpu)).flop_per_s;
      std::vector<analysis::MicroBatchPoint> points;
      double fixed_s = 0;
      for (int m : probe_sizes(lo)) {
        // One and two micro-batches: the difference is one micro-batch, the rest the per-step part.
        const double one = busy_time_s(engine::build_step_program(resolved.workload, s, gpu, precision, {m, 1}, 0), speed);
        const double two = busy_time_s(engine::build_step_program(resolved.workload, s, gpu, precision, {m, 2}, 0), speed);
        points.push_back({m, two - one});
        fixed_s = std::max(fixed_s, one - (two - one));
      }
      profile.step_fixed_s = fixed_s;
      profile.micro_batch_time_s = analysis::MicroBatchCurve(points).tabulate(lo);
    }
    profiles.push_back(std::move(profile));
  }
  return profiles;
}

model::ResolvedScenario apply_plan(const model::ResolvedScenario& resolved, const analysis::BatchPlan& plan,
                                   const std::string& name_suffix)
{
  model::ResolvedScenario planned = resolved;
  auto& s = planned.scenario;
  s.name += name_suffix;
  s.batch_per_rank.clear();
  int largest = 0;
  bool uniform = true;
  for (const auto& share : plan.shares) {
    largest = std::max(largest, share.micro_batch);
    uniform = uniform && share.micro_batch == plan.shares.front().micro_batch;
  }
  s.micro_batch_size = largest;
  if (uniform)
    return planned;
  // Ranks take shares in node-group order, each type's shares in the plan's order (as the reader does).
  std::map<std::string, std::vector<model::BatchShare>> queue;
  for (const auto& share : plan.shares)
    for (int i = 0; i < share.gpus; ++i)
      queue[share.gpu_type].push_back({share.micro_batch, share.accumulation});
  std::map<std::string, std::size_t> next;
  int remaining = s.gpus;
  for (std::size_t g = 0; g < planned.platform.node_groups.size() && remaining > 0; ++g) {
    const auto& node = planned.platform.node_type_of_group(g);
    const int here = std::min(remaining, node.gpus_per_node * planned.platform.node_groups[g].count);
    for (int i = 0; i < here; ++i)
      s.batch_per_rank.push_back(queue.at(node.gpu_type).at(next[node.gpu_type]++));
    remaining -= here;
  }
  return planned;
}

} // namespace gpuscale::plan
