#include "sim/engine/collectives/CollectiveDispatch.hpp"

#include "sim/engine/collectives/HalvingDoublingAllReduce.hpp"
#include "sim/engine/collectives/HierarchicalAllGather.hpp"
#include "sim/engine/collectives/HierarchicalAllReduce.hpp"
#include "sim/engine/collectives/HierarchicalReduceScatter.hpp"
#include "sim/engine/collectives/InSwitchAllReduce.hpp"
#include "sim/engine/collectives/RingAllGather.hpp"
#include "sim/engine/collectives/RingAllReduce.hpp"
#include "sim/engine/collectives/RingReduceScatter.hpp"

namespace gpuscale::engine {

using model::CollectiveAlgorithm;

std::string to_string(CollectiveOp op)
{
  switch (op) {
    case CollectiveOp::AllReduce: return "all-reduce";
    case CollectiveOp::ReduceScatter: return "reduce-scatter";
    case CollectiveOp::AllGather: return "all-gather";
  }
  return "?";
}

CollectiveAlgorithm choose_algorithm(CollectiveAlgorithm requested, CollectiveOp op, int size, bool hierarchical,
                                     double bytes)
{
  if (requested != CollectiveAlgorithm::Auto)
    return requested;
  if (op == CollectiveOp::AllReduce && bytes < kAutoLatencyBoundBytes && is_power_of_two(size) && size > 2)
    return CollectiveAlgorithm::HalvingDoubling;
  const bool flow = size > kAutoFlowLevelAbove;
  if (hierarchical)
    return flow ? CollectiveAlgorithm::HierarchicalFlow : CollectiveAlgorithm::Hierarchical;
  return flow ? CollectiveAlgorithm::RingFlow : CollectiveAlgorithm::Ring;
}

SwitchReduction choose_switch_reduction(CollectiveAlgorithm requested, CollectiveAlgorithm chosen, CollectiveOp op,
                                        int size, bool in_switch_reduction, bool in_network_reduction)
{
  if (requested != CollectiveAlgorithm::Auto || op != CollectiveOp::AllReduce || size < 2)
    return SwitchReduction::None;
  switch (chosen) {
    case CollectiveAlgorithm::Ring:
    case CollectiveAlgorithm::RingFlow:
      return in_switch_reduction ? SwitchReduction::InSwitch : SwitchReduction::None;
    case CollectiveAlgorithm::Hierarchical:
      return in_network_reduction ? SwitchReduction::InNetwork : SwitchReduction::None;
    case CollectiveAlgorithm::HierarchicalFlow:
      return in_network_reduction ? SwitchReduction::InNetwork : SwitchReduction::TreeLatency;
    default:
      return SwitchReduction::None;
  }
}

std::string describe_algorithm(CollectiveAlgorithm chosen, SwitchReduction shortcut)
{
  switch (shortcut) {
    case SwitchReduction::InSwitch: return "nvls";
    case SwitchReduction::InNetwork: return model::to_string(chosen) + "+sharp";
    case SwitchReduction::TreeLatency: return model::to_string(chosen) + "+tree";
    case SwitchReduction::None: break;
  }
  return model::to_string(chosen);
}

CollectivePlan plan_collective(CollectiveOp op, CollectiveAlgorithm requested, const CommunicatorShape& shape,
                               double bytes)
{
  CollectivePlan plan;
  if (shape.size < 2 || bytes <= 0)
    return plan;
  const CollectiveAlgorithm algorithm = choose_algorithm(requested, op, shape.size, shape.hierarchical, bytes);
  const SwitchReduction shortcut = choose_switch_reduction(requested, algorithm, op, shape.size,
                                                           shape.in_switch_reduction, shape.in_network_reduction);
  if (algorithm == CollectiveAlgorithm::HalvingDoubling && op == CollectiveOp::AllReduce) {
    if (is_power_of_two(shape.size))
      plan.halving_doubling = true;
    else // Rabenseifner needs a power of two: the per-step ring instead
      plan.rings = ring_all_reduce_plan(bytes);
    return plan;
  }
  // Halving-doubling is an all-reduce algorithm: other operations take rings.
  const bool hierarchical =
      algorithm == CollectiveAlgorithm::Hierarchical || algorithm == CollectiveAlgorithm::HierarchicalFlow;
  switch (op) {
    case CollectiveOp::AllReduce:
      if (shortcut == SwitchReduction::InSwitch)
        plan.rings = in_switch_all_reduce_plan(bytes);
      else if (hierarchical)
        plan.rings = hierarchical_all_reduce_plan(shape, bytes,
                                                  shortcut == SwitchReduction::InNetwork     ? CrossPhase::InNetwork
                                                  : shortcut == SwitchReduction::TreeLatency ? CrossPhase::TreeLatency
                                                                                             : CrossPhase::Ring);
      else
        plan.rings = ring_all_reduce_plan(bytes);
      break;
    case CollectiveOp::ReduceScatter:
      plan.rings = hierarchical ? hierarchical_reduce_scatter_plan(shape, bytes) : ring_reduce_scatter_plan(bytes);
      break;
    case CollectiveOp::AllGather:
      plan.rings = hierarchical ? hierarchical_all_gather_plan(shape, bytes) : ring_all_gather_plan(bytes);
      break;
  }
  const bool flow_level =
      algorithm == CollectiveAlgorithm::RingFlow || algorithm == CollectiveAlgorithm::HierarchicalFlow;
  plan.granularity = flow_level ? Granularity::FlowLevel : Granularity::PerStep;
  return plan;
}

void run_collective(CollectiveOp op, CollectiveAlgorithm algorithm, const Communicator& comm, int rank, double bytes,
                    CollectiveCounters& counters)
{
  const CollectivePlan plan = plan_collective(op, algorithm, comm.shape(), bytes);
  if (plan.halving_doubling)
    halving_doubling_all_reduce(comm, rank, bytes, counters);
  else if (!plan.rings.empty())
    run_ring_plan(plan.rings, plan.granularity, comm, rank, counters);
}

} // namespace gpuscale::engine
