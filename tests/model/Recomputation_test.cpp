#include "sim/model/Recomputation.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

/// Layers whose `recomputed` flags are `flags`: a run of true is one checkpoint block.
model::WorkloadTrace trace_of(const std::vector<bool>& flags)
{
  model::WorkloadTrace workload;
  for (const bool flag : flags) {
    model::Layer layer;
    layer.recomputed = flag;
    workload.layers.push_back(layer);
  }
  return workload;
}

} // namespace

TEST_CASE("model::recomputed_in_backward recomputes every block, or the first N", "[model]")
{
  // embedding | block 0 (2 layers) | its output | block 1 (2) | its output | block 2 (1) | head
  const auto workload = trace_of({false, true, true, false, true, true, false, true, false});
  CHECK(model::checkpoint_block_count(workload) == 3);
  model::Scenario s;
  CHECK(model::recomputed_in_backward(workload, s) == std::vector<bool>(9, false)); // no checkpointing
  CHECK(model::recomputed_block_count(workload, s) == 0);
  s.activation_checkpointing = true;
  CHECK(model::recomputed_in_backward(workload, s) ==
        std::vector<bool>{false, true, true, false, true, true, false, true, false});
  CHECK(model::recomputed_block_count(workload, s) == 3);
  s.activation_checkpointing_blocks = 2; // the first two blocks; the third keeps its activations
  CHECK(model::recomputed_in_backward(workload, s) ==
        std::vector<bool>{false, true, true, false, true, true, false, false, false});
  CHECK(model::recomputed_block_count(workload, s) == 2);
  s.activation_checkpointing_blocks = 0;
  CHECK(model::recomputed_in_backward(workload, s) == std::vector<bool>(9, false));
  s.activation_checkpointing_blocks = 7; // more than there are: all of them
  CHECK(model::recomputed_block_count(workload, s) == 3);
  CHECK(model::recomputed_in_backward(workload, s)[7]);
}
