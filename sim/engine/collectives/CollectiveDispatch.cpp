#include "sim/engine/collectives/CollectiveDispatch.hpp"

#include "sim/engine/collectives/HalvingDoublingAllReduce.hpp"
#include "sim/engine/collectives/HierarchicalAllGather.hpp"
#include "sim/engine/collectives/HierarchicalAllReduce.hpp"
#include "sim/engine/collectives/HierarchicalReduceScatter.hpp"
#include "sim/engine/collectives/InSwitchAllReduce.hpp"
#include "sim/engine/collectives/RingAllGather.hpp"
#include "sim/engine/collectives/RingAllReduce.hpp"
#include "sim/engine/collectives/RingReduceScatter.hpp"

#include <algorithm>
#include <cmath>

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

namespace {

/// One rank's uncontended bandwidth in a phase of `scope` (CollectiveCosts).
double scope_rate_Bps(RingPhase::Scope scope, const CommunicatorShape& shape)
{
  const CollectiveCosts& c = shape.costs;
  switch (scope) {
    case RingPhase::Scope::Locals: return c.local_rate_Bps;
    case RingPhase::Scope::Crosses: return c.cross_rate_Bps;
    case RingPhase::Scope::Whole: break;
  }
  if (shape.nodes <= 1)
    return c.local_rate_Bps;
  // A flat ring across nodes runs one channel per rail: the node's NICs together carry it.
  return std::min(c.local_rate_Bps, c.cross_rate_Bps * shape.per_node);
}

int scope_size(RingPhase::Scope scope, const CommunicatorShape& shape)
{
  switch (scope) {
    case RingPhase::Scope::Locals: return shape.per_node;
    case RingPhase::Scope::Crosses: return shape.nodes;
    case RingPhase::Scope::Whole: break;
  }
  return shape.size;
}

/// Bytes one rank sends in `phase` per byte on the wire (uncontended estimate).
double phase_bytes(const RingPhase& phase, int q)
{
  if (q < 2)
    return 0;
  if (phase.in_network)
    return phase.buffer_bytes * phase.wire_bytes_factor;
  return phase.rounds * (q - 1) * phase.buffer_bytes / q;
}

} // namespace

int halving_doubling_steps(int p)
{
  int steps = 0;
  for (int distance = 1; distance < p; distance *= 2)
    steps += 2;
  return steps;
}

void choose_execution(const RingPlan& rings, const CommunicatorShape& shape, bool pipelined, RingExecution& execution)
{
  const CollectiveCosts& costs = shape.costs;
  execution.fixed_s = costs.fixed_s;
  double steps = 0, bandwidth_s = 0, buffer = 0;
  double lane_s[2] = {0, 0}; // intra-node, cross-node (RingExecution)
  for (const RingPhase& phase : rings) {
    const int q = scope_size(phase.scope, shape);
    const double rate = scope_rate_Bps(phase.scope, shape);
    const double t = rate > 0 ? phase_bytes(phase, q) / rate : 0.0;
    if (!phase.in_network) {
      steps += phase.rounds * std::max(0, q - 1);
      bandwidth_s += t;
    }
    lane_s[phase.scope == RingPhase::Scope::Crosses ? 1 : 0] += t;
    buffer = std::max(buffer, phase.buffer_bytes);
  }
  const bool low_latency = steps * costs.simple_step_s > (model::kLowLatencyWireFactor - 1) * bandwidth_s;
  execution.protocol = low_latency ? Protocol::LowLatency : Protocol::Simple;
  execution.wire_factor = low_latency ? model::kLowLatencyWireFactor : 1.0;
  execution.step_s = low_latency ? 0.0 : costs.simple_step_s;
  execution.pipelined = pipelined && rings.size() > 1;
  if (execution.pipelined) {
    // The faster lane delays the end by the time one chunk takes through it: the per-channel
    // chunk times the rails (one channel each) make a chunk of the whole buffer.
    const double chunks = std::max(1.0, std::floor(buffer / (kPipelineChunkBytes * std::max(1, shape.per_node))));
    execution.fill_s = execution.wire_factor * std::min(lane_s[0], lane_s[1]) / chunks;
  }
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
    if (is_power_of_two(shape.size)) {
      plan.halving_doubling = true;
      // Its exchanges move the ring's bytes in log2 p steps each way.
      plan.execution.fixed_s = shape.costs.fixed_s;
      const bool low_latency = halving_doubling_steps(shape.size) * shape.costs.simple_step_s >
                               (model::kLowLatencyWireFactor - 1) * 2.0 * bytes *
                                   (shape.size - 1) / shape.size / scope_rate_Bps(RingPhase::Scope::Whole, shape);
      plan.execution.protocol = low_latency ? Protocol::LowLatency : Protocol::Simple;
      plan.execution.wire_factor = low_latency ? model::kLowLatencyWireFactor : 1.0;
      plan.execution.step_s = low_latency ? 0.0 : shape.costs.simple_step_s;
    } else { // Rabenseifner needs a power of two: the per-step ring instead
      plan.rings = ring_all_reduce_plan(bytes);
      choose_execution(plan.rings, shape, false, plan.execution);
    }
    return plan;
  }
  // Halving-doubling is an all-reduce algorithm: other operations take rings.
  const bool hierarchical =
      algorithm == CollectiveAlgorithm::Hierarchical || algorithm == CollectiveAlgorithm::HierarchicalFlow;
  switch (op) {
    case CollectiveOp::AllReduce:
      if (shortcut == SwitchReduction::InSwitch)
        plan.rings = in_switch_all_reduce_plan(bytes, shape.size, shape.costs.nvls_wire_factor);
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
  choose_execution(plan.rings, shape, hierarchical && shape.hierarchical, plan.execution);
  plan.execution.granularity = flow_level ? Granularity::FlowLevel : Granularity::PerStep;
  return plan;
}

void run_collective(CollectiveOp op, CollectiveAlgorithm algorithm, const Communicator& comm, int rank, double bytes,
                    CollectiveCounters& counters)
{
  const CollectivePlan plan = plan_collective(op, algorithm, comm.shape(), bytes);
  if (plan.halving_doubling)
    halving_doubling_all_reduce(comm, rank, bytes, plan.execution, counters);
  else if (!plan.rings.empty())
    run_ring_plan(plan.rings, plan.execution, comm, rank, counters);
}

} // namespace gpuscale::engine
