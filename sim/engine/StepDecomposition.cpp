#include "sim/engine/StepDecomposition.hpp"

#include "sim/engine/ComputeCostModel.hpp"
#include "sim/engine/ScheduleBuilder.hpp"


namespace gpuscale::engine {

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
  double trainable = 0;
  for (const auto& layer : resolved.workload.layers) {
    trainable += share_of(layer, s, s.micro_batch_size).trainable_params;
    const KernelCost forward = forward_kernel(layer, s, precision, s.micro_batch_size);
    const KernelCost none{};
    // A recomputed layer's forward kernel runs again in backward (build_step_program).
    for (const KernelCost& kernel : {forward, recomputed_in_backward(layer, s) ? forward : none,
                                     backward_kernel(layer, s, precision, s.micro_batch_size)}) {
      if (kernel.memory_bound_kind && kernel.bytes > 0)
        work.memory_kernels.push_back({kernel.flop, kernel.bytes, steps});
      else
        work.flop_bound_flop += steps * kernel.flop;
    }
  }
  const double shard = model::shards_optimizer_states(s.zero()) ? s.data_parallel() : 1.0;
  work.optimizer_bytes = trainable / shard * optimizer_traffic_bytes_per_param(resolved.workload.optimizer, precision);
  return work;
}

} // namespace gpuscale::engine
