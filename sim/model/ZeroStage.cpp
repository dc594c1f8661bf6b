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

bool overlaps_communication_by_default(ZeroStage stage)
{
  return stage == ZeroStage::Ddp || stage == ZeroStage::Parameters;
}

bool reduces_during_backward(ZeroStage stage, bool overlap_comm)
{
  return stage != ZeroStage::OptimizerStates || overlap_comm;
}

bool runs_gradient_hooks(ZeroStage stage, bool overlap_comm)
{
  return shards_gradients(stage) || (stage == ZeroStage::OptimizerStates && overlap_comm);
}

double default_bucket_bytes(ZeroStage stage)
{
  return stage == ZeroStage::Ddp ? 25e6 : 5e8 * 2.0;
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
