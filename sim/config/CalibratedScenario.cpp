#include "sim/config/CalibratedScenario.hpp"

namespace gpuscale::config {

void apply_calibration(model::ResolvedScenario& resolved, const model::Calibration& calibration)
{
  if (resolved.platform.node_groups.empty())
    return;
  const auto& node = resolved.platform.node_type_of_group(0);
  const auto& gpu = resolved.platform.gpu_type_of(node);
  const std::string& benchmark = resolved.workload.benchmark;
  resolved.scenario.efficiency = calibration.efficiency_for(
      benchmark, gpu.generation, model::fabric_class_of(resolved.platform, resolved.scenario.gpus));
  if (resolved.convergence)
    resolved.convergence->run_start_overhead_s += calibration.overhead_s_for(benchmark);
}

} // namespace gpuscale::config
