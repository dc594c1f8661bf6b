#include "sim/model/Recomputation.hpp"

#include <algorithm>

namespace gpuscale::model {

int checkpoint_block_count(const WorkloadTrace& workload)
{
  int blocks = 0;
  bool inside = false;
  for (const auto& layer : workload.layers) {
    if (layer.recomputed && !inside)
      ++blocks;
    inside = layer.recomputed;
  }
  return blocks;
}

int recomputed_block_count(const WorkloadTrace& workload, const Scenario& scenario)
{
  if (!scenario.activation_checkpointing)
    return 0;
  const int all = checkpoint_block_count(workload);
  return scenario.activation_checkpointing_blocks ? std::min(all, *scenario.activation_checkpointing_blocks) : all;
}

std::vector<bool> recomputed_in_backward(const WorkloadTrace& workload, const Scenario& scenario)
{
  const int recomputed_blocks = recomputed_block_count(workload, scenario);
  std::vector<bool> recomputed(workload.layers.size(), false);
  int block = -1; // index of the block the current run of recomputed layers belongs to
  bool inside = false;
  for (std::size_t i = 0; i < workload.layers.size(); ++i) {
    const bool in_block = workload.layers[i].recomputed;
    if (in_block && !inside)
      ++block;
    inside = in_block;
    recomputed[i] = in_block && block < recomputed_blocks;
  }
  return recomputed;
}

bool recompute_fewest_blocks(Scenario& s, const WorkloadTrace& workload,
                             const std::function<bool(const Scenario&)>& fits)
{
  s.activation_checkpointing = false;
  s.activation_checkpointing_blocks.reset();
  if (fits(s))
    return true;
  s.activation_checkpointing = true;
  if (!fits(s))
    return false;
  const int all = checkpoint_block_count(workload);
  int too_few = 0;
  int enough = all;
  while (enough - too_few > 1) {
    const int middle = (too_few + enough) / 2;
    s.activation_checkpointing_blocks = middle;
    (fits(s) ? enough : too_few) = middle;
  }
  s.activation_checkpointing_blocks = enough;
  if (enough == all)
    s.activation_checkpointing_blocks.reset(); // every block: plain checkpointing
  return true;
}

} // namespace gpuscale::model
