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

void run_collective(CollectiveOp op, CollectiveAlgorithm algorithm, const Communicator& comm, int rank, double bytes,
                    CollectiveCounters& counters)
{
  if (comm.size() < 2 || bytes <= 0)
    return;
  const CollectiveAlgorithm requested = algorithm;
  algorithm = choose_algorithm(requested, op, comm.size(), comm.hierarchical(), bytes);
  const SwitchReduction shortcut = choose_switch_reduction(requested, algorithm, op, comm.size(),
                                                           comm.in_switch_reduction, comm.in_network_reduction);
  if (algorithm == CollectiveAlgorithm::HalvingDoubling && op == CollectiveOp::AllReduce) {
    halving_doubling_all_reduce(comm, rank, bytes, counters);
    return;
  }
  // Halving-doubling is an all-reduce algorithm: other operations take rings.
  const bool hierarchical =
      algorithm == CollectiveAlgorithm::Hierarchical || algorithm == CollectiveAlgorithm::HierarchicalFlow;
  RingPlan plan;
  switch (op) {
    case CollectiveOp::AllReduce:
      if (shortcut == SwitchReduction::InSwitch)
        plan = in_switch_all_reduce_plan(bytes);
      else if (hierarchical)
        plan = hierarchical_all_reduce_plan(comm, bytes,
                                            shortcut == SwitchReduction::InNetwork     ? CrossPhase::InNetwork
                                            : shortcut == SwitchReduction::TreeLatency ? CrossPhase::TreeLatency
                                                                                       : CrossPhase::Ring);
      else
        plan = ring_all_reduce_plan(bytes);
      break;
    case CollectiveOp::ReduceScatter:
      plan = hierarchical ? hierarchical_reduce_scatter_plan(comm, bytes) : ring_reduce_scatter_plan(bytes);
      break;
    case CollectiveOp::AllGather:
      plan = hierarchical ? hierarchical_all_gather_plan(comm, bytes) : ring_all_gather_plan(bytes);
      break;
  }
  const bool flow_level =
      algorithm == CollectiveAlgorithm::RingFlow || algorithm == CollectiveAlgorithm::HierarchicalFlow;
  run_ring_plan(plan, flow_level ? Granularity::FlowLevel : Granularity::PerStep, comm, rank, counters);
}

} // namespace gpuscale::engine
