#include "sim/engine/StepDecomposition.hpp"

#include "sim/engine/ComputeCostModel.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "sim/model/PipelineSchedule.hpp"
#include "sim/model/Recomputation.hpp"

#include <algorithm>
#include <map>
#include <utility>


namespace gpuscale::engine {
namespace {

/// Whether each layer runs on the GPU decompose_step describes: every layer, or with pipeline
/// parallelism those of the stage whose chunks run the most forward FLOPs.
std::vector<bool> layers_of_busiest_stage(const model::WorkloadTrace& workload, const model::Scenario& s)
{
  std::vector<bool> held(workload.layers.size(), s.pipeline_parallel <= 1);
  if (s.pipeline_parallel <= 1)
    return held;
  const std::vector<model::LayerRange> chunks = model::pipeline_chunks(workload, s.pipeline_parallel * s.virtual_pipeline);
  std::vector<double> stage_flop(static_cast<std::size_t>(s.pipeline_parallel), 0.0);
  for (std::size_t c = 0; c < chunks.size(); ++c)
    for (std::size_t i = chunks[c].begin; i < chunks[c].end; ++i)
      stage_flop[c % stage_flop.size()] += workload.layers[i].forward_flop_per_sample;
  const auto busiest = static_cast<std::size_t>(std::max_element(stage_flop.begin(), stage_flop.end()) - stage_flop.begin());
  for (std::size_t c = busiest; c < chunks.size(); c += stage_flop.size())
    std::fill(held.begin() + static_cast<std::ptrdiff_t>(chunks[c].begin),
              held.begin() + static_cast<std::ptrdiff_t>(chunks[c].end), true);
  return held;
}

} // namespace

model::StepWork decompose_step(const model::ResolvedScenario& resolved)
{
  const model::Scenario& s = resolved.scenario;
  const model::Precision precision = resolved.precision();
  const auto& node = resolved.platform.node_type_of_group(0);
  const model::GpuType& gpu = resolved.platform.gpu_type_of(node);
  model::StepWork work;
  work.peak_flop_per_s = gpu.peak_for(precision).value_or(0.0);
  work.memory_bw_Bps = gpu.memory_bw_Bps;
  const double steps = s.gradient_accumulation_steps();
  const double launch_s = launch_time_s(s);
  // Identical kernels (the same product in every transformer block) are one entry with their count:
  // the calibration's surrogate sorts these entries.
  std::map<std::pair<double, double>, double> roofline_kernels;
  double trainable = 0;
  auto add = [&](const LayerKernels& kernels) {
    for (const auto& kernel : kernels.kernels) {
      if (kernel.bytes > 0)
        roofline_kernels[{kernel.occupied_flop, kernel.bytes}] += steps;
      else
        work.flop_bound_flop += steps * kernel.occupied_flop;
      if (kernel.launched)
        work.fixed_s += steps * launch_s;
    }
  };
  const std::vector<bool> recomputed = model::recomputed_in_backward(resolved.workload, s);
  const std::vector<bool> held = layers_of_busiest_stage(resolved.workload, s);
  for (std::size_t i = 0; i < resolved.workload.layers.size(); ++i) {
    if (!held[i])
      continue;
    const model::Layer& layer = resolved.workload.layers[i];
    trainable += share_of(layer, s, s.micro_batch_size).trainable_params;
    const LayerKernels forward =
        forward_kernels(layer, s, gpu, precision, s.micro_batch_size, tp_overlap_row_chunks(layer, s, false));
    add(forward);
    if (recomputed[i]) // its forward runs again in backward (build_step_program)
      add(forward);
    add(backward_kernels(layer, s, gpu, precision, s.micro_batch_size, tp_overlap_row_chunks(layer, s, true)));
  }
  for (const auto& [kernel, count] : roofline_kernels)
    work.memory_kernels.push_back({kernel.first, kernel.second, count});
  const double shard = model::shards_optimizer_states(s.zero()) ? s.data_parallel() : 1.0;
  work.optimizer_bytes = trainable / shard * optimizer_traffic_bytes_per_param(resolved.workload.optimizer, precision);
  return work;
}

} // namespace gpuscale::engine
