#include "sim/engine/ParallelLayout.hpp"

namespace gpuscale::engine {

ParallelLayout make_parallel_layout(const model::Scenario& scenario)
{
  ParallelLayout layout;
  layout.tp = scenario.tensor_parallel;
  layout.cp = scenario.context_parallel;
  layout.pp = scenario.pipeline_parallel;
  layout.dp = scenario.data_parallel();
  const int tp = layout.tp;
  const int cp = layout.cp;
  const int pp = layout.pp;
  layout.data_parallel_groups.assign(static_cast<std::size_t>(tp * cp * pp), {});
  layout.tensor_parallel_groups.assign(static_cast<std::size_t>(layout.dp * pp * cp), {});
  layout.context_parallel_groups.assign(static_cast<std::size_t>(layout.dp * pp * tp), {});
  for (int rank = 0; rank < scenario.gpus; ++rank) {
    layout.data_parallel_groups[static_cast<std::size_t>(layout.data_parallel_group_of(rank))].push_back(rank);
    layout.tensor_parallel_groups[static_cast<std::size_t>(layout.tensor_parallel_group_of(rank))].push_back(rank);
    layout.context_parallel_groups[static_cast<std::size_t>(layout.context_parallel_group_of(rank))].push_back(rank);
  }
  return layout;
}

} // namespace gpuscale::engine
