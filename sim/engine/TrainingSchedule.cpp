#include "sim/engine/TrainingSchedule.hpp"

namespace gpuscale::engine {

double optimizer_traffic_bytes_per_param(model::Optimizer optimizer, model::Precision precision)
{
  const double states = optimizer == model::Optimizer::SgdMomentum ? 4.0 : 8.0; // momentum | Adam/LAMB m and v
  const double element = model::element_bytes(precision);
  if (element >= 4.0) // fp32: read gradient, parameter, states; write parameter, states
    return 4.0 + 4.0 + states + 4.0 + states;
  // mixed precision: read low-precision gradient, fp32 master, states; write master, states, low-precision copy
  return element + 4.0 + states + 4.0 + states + element;
}

StepSchedule build_ddp_schedule(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                                const model::GpuType& gpu, model::Precision precision)
{
  StepSchedule schedule;
  const double micro = scenario.micro_batch_size;
  schedule.micro_batches = scenario.gradient_accumulation_steps();
  const double grad_element_bytes = model::element_bytes(precision);
  schedule.forward_flop = workload.forward_flop_per_sample() * micro;
  const double recompute = scenario.activation_checkpointing ? workload.recompute_flop_per_sample() : 0.0;
  schedule.backward_flop = (workload.backward_flop_per_sample() + recompute) * micro;

  BackwardSegment segment;
  for (auto layer = workload.layers.rbegin(); layer != workload.layers.rend(); ++layer) {
    segment.flop += (layer->backward_flop_per_sample +
                     (scenario.activation_checkpointing && layer->recomputed ? layer->forward_flop_per_sample : 0.0)) *
                    micro;
    segment.bucket_bytes += layer->trainable_params * grad_element_bytes;
    if (segment.bucket_bytes >= scenario.bucket_bytes) {
      schedule.last_backward.push_back(segment);
      segment = {};
    }
  }
  if (segment.flop > 0 || segment.bucket_bytes > 0)
    schedule.last_backward.push_back(segment);

  schedule.gradient_bytes = workload.trainable_params() * grad_element_bytes;
  schedule.optimizer_s = workload.trainable_params() * optimizer_traffic_bytes_per_param(workload.optimizer, precision) /
                         (gpu.memory_bw_Bps * scenario.efficiency.memory);
  return schedule;
}

} // namespace gpuscale::engine
