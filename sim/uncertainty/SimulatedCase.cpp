#include "sim/uncertainty/SimulatedCase.hpp"

#include "sim/engine/StepDecomposition.hpp"
#include "sim/units/Quantity.hpp"

namespace gpuscale::uncertainty {

analysis::CalibrationCase simulated_case(const model::ResolvedScenario& scenario, const results::RunRecord& r,
                                         const std::string& gpu_type)
{
  const auto& s = scenario.scenario;
  analysis::CalibrationCase c;
  c.accelerators = s.gpus;
  c.nodes = r.nodes;
  c.global_batch_size = s.global_batch_size;
  c.reference = s.efficiency;
  if (const auto used = scenario.platform.groups_used(s.gpus); !used.empty()) {
    const auto& node = scenario.platform.node_type_of_group(used.front().group);
    const auto link_class = model::scale_up_link_class(node.fabric);
    c.scale_up_link = model::to_string(link_class);
    const auto& first = scenario.platform.gpu_type_of(node);
    const auto& gpu = gpu_type.empty() ? first : scenario.platform.gpu_types.at(gpu_type);
    c.family = gpu.name;
    c.generation = gpu.generation;
    c.reference = s.efficiency_for(gpu);
    c.reference_link_fraction = s.links.of(link_class, gpu.generation);
    c.generation_year = gpu.generation_available_year;
  }
  c.work = engine::decompose_step(scenario);
  c.iteration_s = r.iter_time_s;
  c.comm_s = r.comm_time_s;
  c.exposed_comm_s = r.exposed_comm_s;
  if (r.host_max_samples_per_s > 0)
    c.host_limit_s = static_cast<double>(s.global_batch_size) / s.data_parallel() / r.host_max_samples_per_s;
  c.step_equivalents = r.effective_iter_time_s > 0
                           ? units::from_minutes(r.ttt_training_min + r.ttt_evaluation_min) / r.effective_iter_time_s
                           : 0.0;
  c.fixed_s = units::from_minutes(r.ttt_overhead_min);
  c.table_samples = r.samples_to_converge;
  c.reference_s = units::from_minutes(r.time_to_train_min);
  c.prepare();
  return c;
}

} // namespace gpuscale::uncertainty
