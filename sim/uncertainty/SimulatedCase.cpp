#include "sim/uncertainty/SimulatedCase.hpp"

#include "sim/engine/StepDecomposition.hpp"
#include "sim/units/Quantity.hpp"

namespace gpuscale::uncertainty {

void set_node_type(analysis::CalibrationCase& c, const model::ResolvedScenario& scenario, const model::NodeType& node)
{
  const auto& s = scenario.scenario;
  const auto& gpu = scenario.platform.gpu_type_of(node);
  const auto link_class = model::scale_up_link_class(node.fabric);
  c.family = gpu.name;
  c.generation = gpu.generation;
  c.reference = s.efficiency_for(gpu);
  c.scale_up_link = model::to_string(link_class);
  c.reference_link_fraction = s.links.of(link_class, gpu.generation);
  c.generation_year = gpu.generation_available_year;
  c.prepare();
}

analysis::CalibrationCase simulated_case(const model::ResolvedScenario& scenario, const results::RunRecord& r)
{
  const auto& s = scenario.scenario;
  analysis::CalibrationCase c;
  c.accelerators = s.gpus;
  c.nodes = r.nodes;
  c.global_batch_size = s.global_batch_size;
  c.reference = s.efficiency;
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
  if (const auto used = scenario.platform.groups_used(s.gpus); !used.empty())
    set_node_type(c, scenario, scenario.platform.node_type_of_group(used.front().group));
  else
    c.prepare();
  return c;
}

} // namespace gpuscale::uncertainty
