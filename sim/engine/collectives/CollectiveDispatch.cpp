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
#include <limits>

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

CollectiveAlgorithm choose_algorithm(CollectiveAlgorithm requested, bool hierarchical)
{
  if (requested != CollectiveAlgorithm::Auto)
    return requested;
  return hierarchical ? CollectiveAlgorithm::HierarchicalFlow : CollectiveAlgorithm::RingFlow;
}

SwitchReduction choose_switch_reduction(CollectiveAlgorithm requested, CollectiveAlgorithm chosen, CollectiveOp op,
                                        int size, bool in_switch_reduction, bool in_network_reduction)
{
  if (requested != CollectiveAlgorithm::Auto || op != CollectiveOp::AllReduce || size < 2)
    return SwitchReduction::None;
  switch (chosen) {
    case CollectiveAlgorithm::RingFlow:
      return in_switch_reduction ? SwitchReduction::InSwitch : SwitchReduction::None;
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

namespace {

/// Route latency of one hop of a phase of `scope` (CollectiveCosts).
double scope_latency_s(RingPhase::Scope scope, const CommunicatorShape& shape)
{
  const CollectiveCosts& c = shape.costs;
  switch (scope) {
    case RingPhase::Scope::Locals: return c.local_latency_s;
    case RingPhase::Scope::Crosses: return c.cross_latency_s;
    case RingPhase::Scope::Whole: break;
  }
  return shape.nodes > 1 ? c.cross_latency_s : c.local_latency_s; // a step waits for its slowest hop
}

/// The uncontended time of `rings` run as `execution` (granularity and pipelining set), with the
/// pipeline fill it implies (set in `execution`).
double estimate_rings_s(const RingPlan& rings, const CommunicatorShape& shape, RingExecution& execution)
{
  double lane_s[2] = {0, 0};           // intra-node, cross-node (RingExecution)
  double lane_bandwidth_s[2] = {0, 0}; // their bandwidth terms
  double buffer = 0;
  for (const RingPhase& phase : rings) {
    const int q = scope_size(phase.scope, shape);
    if (q < 2 || phase.buffer_bytes <= 0)
      continue;
    const double rate = scope_rate_Bps(phase.scope, shape);
    const double wire = phase.in_network ? 1.0 : execution.wire_factor;
    const double bandwidth_s = rate > 0 ? wire * phase_bytes(phase, q) / rate : 0.0;
    const int steps = phase.in_network ? 0 : phase.rounds * (q - 1);
    const int latencies = phase.in_network ? 2
                          : execution.granularity == Granularity::FlowLevel ? flow_level_latencies(phase, steps, q)
                                                                           : steps;
    const int lane = execution.pipelined && phase.scope == RingPhase::Scope::Crosses ? 1 : 0;
    lane_s[lane] += latencies * scope_latency_s(phase.scope, shape) + steps * execution.step_s + bandwidth_s;
    lane_bandwidth_s[lane] += bandwidth_s;
    buffer = std::max(buffer, phase.buffer_bytes);
  }
  execution.fill_s = 0;
  if (execution.pipelined) {
    // The faster lane delays the end by the time the first (or last) chunk takes through it: all
    // its latencies, and its bandwidth time over the chunks (the per-channel chunk times the rails,
    // one channel each, make a chunk of the whole buffer). One chunk: the lanes one after the other.
    const double chunks = std::max(1.0, std::floor(buffer / (kPipelineChunkBytes * std::max(1, shape.per_node))));
    const int faster = lane_s[0] <= lane_s[1] ? 0 : 1;
    execution.fill_s = lane_s[faster] - lane_bandwidth_s[faster] + lane_bandwidth_s[faster] / chunks;
  }
  return execution.fixed_s + std::max(lane_s[0], lane_s[1]) + execution.fill_s;
}

void set_protocol(RingExecution& execution, Protocol protocol, const CollectiveCosts& costs)
{
  execution.protocol = protocol;
  execution.wire_factor = protocol == Protocol::LowLatency ? model::kLowLatencyWireFactor : 1.0;
  execution.step_s = protocol == Protocol::LowLatency ? 0.0 : costs.simple_step_s;
}

/// Rabenseifner's uncontended time: 2 log2 p exchanges of the ring's bytes in all. Each exchange is
/// one transfer to one partner: across nodes through the GPU's own share of the NICs (no channels
/// spread it over the rails as a ring's are).
double estimate_halving_doubling_s(const CommunicatorShape& shape, double bytes, const RingExecution& execution)
{
  const CollectiveCosts& c = shape.costs;
  const double rate = shape.nodes > 1 ? std::min(c.local_rate_Bps, c.cross_rate_Bps) : c.local_rate_Bps;
  const int steps = halving_doubling_steps(shape.size);
  return execution.fixed_s + steps * (scope_latency_s(RingPhase::Scope::Whole, shape) + execution.step_s) +
         (rate > 0 ? execution.wire_factor * 2.0 * bytes * (shape.size - 1) / shape.size / rate : 0.0);
}

} // namespace

double choose_execution(const RingPlan& rings, const CommunicatorShape& shape, bool pipelined, RingExecution& execution)
{
  execution.fixed_s = shape.costs.fixed_s;
  execution.pipelined = pipelined && rings.size() > 1;
  double best_s = std::numeric_limits<double>::infinity();
  Protocol best = Protocol::Simple;
  for (Protocol protocol : {Protocol::Simple, Protocol::LowLatency}) {
    set_protocol(execution, protocol, shape.costs);
    const double t = estimate_rings_s(rings, shape, execution);
    if (t < best_s) {
      best_s = t;
      best = protocol;
    }
  }
  set_protocol(execution, best, shape.costs);
  estimate_rings_s(rings, shape, execution); // the fill of the chosen protocol
  return best_s;
}

namespace {

/// The plan of `algorithm` (not halving-doubling) with `shortcut`, and its estimate.
CollectivePlan ring_based_plan(CollectiveOp op, CollectiveAlgorithm algorithm, SwitchReduction shortcut,
                               const CommunicatorShape& shape, double bytes)
{
  CollectivePlan plan;
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
  plan.execution.granularity = flow_level ? Granularity::FlowLevel : Granularity::PerStep;
  plan.estimate_s = choose_execution(plan.rings, shape, hierarchical && shape.hierarchical, plan.execution);
  plan.algorithm = describe_algorithm(algorithm, shortcut);
  return plan;
}

CollectivePlan halving_doubling_plan(const CommunicatorShape& shape, double bytes)
{
  CollectivePlan plan;
  if (!is_power_of_two(shape.size)) { // Rabenseifner needs a power of two: the per-step ring instead
    plan = ring_based_plan(CollectiveOp::AllReduce, CollectiveAlgorithm::Ring, SwitchReduction::None, shape, bytes);
    return plan;
  }
  plan.halving_doubling = true;
  plan.execution.fixed_s = shape.costs.fixed_s;
  plan.estimate_s = std::numeric_limits<double>::infinity();
  for (Protocol protocol : {Protocol::Simple, Protocol::LowLatency}) {
    RingExecution e = plan.execution;
    set_protocol(e, protocol, shape.costs);
    if (const double t = estimate_halving_doubling_s(shape, bytes, e); t < plan.estimate_s) {
      plan.estimate_s = t;
      plan.execution = e;
    }
  }
  plan.algorithm = model::to_string(CollectiveAlgorithm::HalvingDoubling);
  return plan;
}

} // namespace

CollectivePlan plan_collective(CollectiveOp op, CollectiveAlgorithm requested, const CommunicatorShape& shape,
                               double bytes)
{
  if (shape.size < 2 || bytes <= 0)
    return {};
  const CollectiveAlgorithm algorithm = choose_algorithm(requested, shape.hierarchical);
  if (algorithm == CollectiveAlgorithm::HalvingDoubling) {
    if (op == CollectiveOp::AllReduce)
      return halving_doubling_plan(shape, bytes);
    // Halving-doubling is an all-reduce algorithm: other operations take the ring.
    return ring_based_plan(op, CollectiveAlgorithm::Ring, SwitchReduction::None, shape, bytes);
  }
  const SwitchReduction shortcut = choose_switch_reduction(requested, algorithm, op, shape.size,
                                                           shape.in_switch_reduction, shape.in_network_reduction);
  CollectivePlan plan = ring_based_plan(op, algorithm, shortcut, shape, bytes);
  // Under auto, NCCL's tuner takes the algorithm its cost model says is fastest: for small
  // all-reduces the log2 p latencies of halving-doubling (what its trees buy) against the ring's.
  if (requested == CollectiveAlgorithm::Auto && op == CollectiveOp::AllReduce && is_power_of_two(shape.size) &&
      shape.size > 2)
    if (CollectivePlan alternative = halving_doubling_plan(shape, bytes); alternative.estimate_s < plan.estimate_s)
      return alternative;
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
