#include "sim/run/SimulationCost.hpp"

#include <algorithm>

namespace gpuscale::run {

double simulation_cost_units(const model::Scenario& scenario, const model::WorkloadTrace& workload)
{
  int micro_batches = scenario.batch_per_rank.empty() ? scenario.gradient_accumulation_steps() : 1;
  for (const auto& share : scenario.batch_per_rank)
    micro_batches = std::max(micro_batches, share.accumulation);
  return static_cast<double>(scenario.gpus) * static_cast<double>(std::max<std::size_t>(1, workload.layers.size())) *
         std::max(1, micro_batches);
}

} // namespace gpuscale::run
