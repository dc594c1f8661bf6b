#include "sim/model/ZeroStage.hpp"

#include <stdexcept>

namespace gpuscale::model {

ZeroStage zero_stage_of(int stage)
{
  if (stage < 0 || stage > 3)
    throw std::invalid_argument("ZeRO stage must be 0-3, got " + std::to_string(stage));
  return static_cast<ZeroStage>(stage);
}

int stage_number(ZeroStage stage)
{
  return static_cast<int>(stage);
}

std::string to_string(ZeroStage stage)
{
  return "ZeRO-" + std::to_string(stage_number(stage));
}

bool shards_optimizer_states(ZeroStage stage)
{
  return stage != ZeroStage::Ddp;
}

bool shards_gradients(ZeroStage stage)
{
  return stage == ZeroStage::Gradients || stage == ZeroStage::Parameters;
}

bool shards_parameters(ZeroStage stage)
{
  return stage == ZeroStage::Parameters;
}

GradientReduction gradient_reduction(ZeroStage stage)
{
  return stage == ZeroStage::Ddp ? GradientReduction::AllReduce : GradientReduction::ReduceScatter;
}

bool reduces_every_micro_batch(ZeroStage stage)
{
  return shards_gradients(stage);
}

bool reduces_during_backward(ZeroStage stage)
{
  return stage != ZeroStage::OptimizerStates;
}

bool gathers_parameters_after_step(ZeroStage stage)
{
  return stage == ZeroStage::OptimizerStates || stage == ZeroStage::Gradients;
}

bool gathers_parameters_before_use(ZeroStage stage)
{
  return shards_parameters(stage);
}

bool allows_cuda_graph(ZeroStage stage) { return !gathers_parameters_before_use(stage); }

} // namespace gpuscale::model
