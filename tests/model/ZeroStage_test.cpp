// ZeRO's stage rules (Rajbhandari et al., SC 2020, sec. 5): each stage shards what the one before
// it shards and one thing more, and every replica gets its parameters back exactly one way.

#include "sim/model/ZeroStage.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;
using model::ZeroStage;

TEST_CASE("model::ZeroStage shards optimizer states then gradients then parameters", "[model][zero]")
{
  const ZeroStage stages[] = {ZeroStage::Ddp, ZeroStage::OptimizerStates, ZeroStage::Gradients, ZeroStage::Parameters};
  for (int n = 0; n <= 3; ++n) {
    const ZeroStage stage = stages[n];
    INFO(model::to_string(stage));
    CHECK(model::zero_stage_of(n) == stage);
    CHECK(model::shards_optimizer_states(stage) == (n >= 1));
    CHECK(model::shards_gradients(stage) == (n >= 2));
    CHECK(model::shards_parameters(stage) == (n >= 3));
    // Whoever shards anything reduces gradients to shards; only DDP all-reduces.
    CHECK((model::gradient_reduction(stage) == model::GradientReduction::AllReduce) == (n == 0));
    // Sharded optimizer states mean updated parameters come back by one all-gather pattern: after
    // the step (1, 2) or before every use (3), never both.
    CHECK(static_cast<int>(model::gathers_parameters_after_step(stage)) +
              static_cast<int>(model::gathers_parameters_before_use(stage)) ==
          (n >= 1 ? 1 : 0));
    // Stages that keep no full gradient must reduce every micro-batch, during backward.
    if (model::shards_gradients(stage))
      for (bool overlap : {false, true})
        CHECK((model::reduces_every_micro_batch(stage) && model::reduces_during_backward(stage, overlap)));
    // DeepSpeed's Python gradient hooks: wherever gradients are sharded; never under DDP's C++ reducer.
    CHECK(model::runs_gradient_hooks(stage, false) == model::shards_gradients(stage));
    CHECK_FALSE(model::runs_gradient_hooks(ZeroStage::Ddp, true));
    // Only a step whose parameters are fetched module by module at run time cannot be a CUDA graph.
    CHECK(model::allows_cuda_graph(stage) == (n <= 2));
  }
  CHECK(model::to_string(ZeroStage::Gradients) == "ZeRO-2");
  // ZeRO-1 registers its gradient hooks only with overlap_comm; without, one pass after the last backward.
  CHECK_FALSE(model::reduces_during_backward(ZeroStage::OptimizerStates, false));
  CHECK(model::reduces_during_backward(ZeroStage::OptimizerStates, true));
  CHECK(model::runs_gradient_hooks(ZeroStage::OptimizerStates, true));
  CHECK_THROWS_WITH(model::zero_stage_of(4), "ZeRO stage must be 0-3, got 4");
}
