#include "sim/engine/KernelTimingModel.hpp"

#include "sim/model/Roofline.hpp"

#include <stdexcept>

namespace gpuscale::engine {

ModelledKernel model_timed_kernel(const model::KernelTiming& timing, const model::GpuType& gpu,
                                  const model::Efficiency& efficiency)
{
  // A layer of that one kernel, on one GPU without parallelism: the shape is already the rank's.
  model::Layer layer;
  layer.name = timing.layer;
  layer.kind = model::LayerKind::Other;
  layer.kernels = {timing.kernel};
  const model::Scenario scenario;
  using P = model::KernelPass;
  const LayerKernels kernels =
      timing.pass == P::Forward ? forward_kernels(layer, scenario, gpu, timing.precision, timing.micro_batch)
                                : backward_kernels(layer, scenario, gpu, timing.precision, timing.micro_batch);
  const std::size_t index = timing.pass == P::WeightGradient ? 1 : 0;
  if (index >= kernels.kernels.size())
    throw std::logic_error("model_timed_kernel: the model has no " + model::to_string(timing.pass) + " kernel for " +
                           timing.kernel.op_name() + " (the reader checks the pass)");
  ModelledKernel out;
  out.cost = kernels.kernels[index];
  const model::PeakRates peak = model::peak_rates_of(gpu, timing.precision);
  out.roof_s = model::Roofline{peak.flop_per_s, peak.memory_bw_Bps}.time_s({out.cost.flop, out.cost.bytes});
  const model::Roofline roofline = peak.at(efficiency);
  out.model_s = kernel_time_s(out.cost, roofline);
  out.memory_bound = roofline.memory_limited({out.cost.occupied_flop, out.cost.bytes});
  return out;
}

} // namespace gpuscale::engine
