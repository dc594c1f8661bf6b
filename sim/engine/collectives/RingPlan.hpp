#pragma once
/// Every ring-based algorithm (flat or hierarchical; all-reduce, reduce-scatter, all-gather) is a plan:
/// phases run one after another, each a set of rings that run at once (the whole communicator, every
/// node's ring, or every rail's ring across nodes), each ring doing rounds·(q-1) steps in which a
/// rank sends buffer/q bytes to its successor and receives as much from its predecessor (q: the
/// ring's size). Each rank runs the plan from its own actor, in one of two granularities that load the
/// same links with the same volume:
///   per step:   steps x (alpha + chunk/B)                      O(p) communications per rank
///   flow level: per phase one flow of steps x chunk bytes; the (steps - 1) route latencies the flows
///               did not pay are slept once, at the end of the collective   O(1) per rank and phase
/// On an uncontended ring both give the closed form; under contention both share links with the
/// rest of the traffic. Paying the latencies at the end rather than after each phase starts a
/// later phase a few microseconds early: it saves one blocking call per phase and rank, which is
/// most of the cost at thousands of GPUs (docs/BENCHMARKS.md).

#include "sim/engine/collectives/Communicator.hpp"

#include <vector>

namespace gpuscale::engine {

struct RingPhase {
  enum class Scope {
    Whole,   ///< one ring over the communicator
    Locals,  ///< one ring per node (hierarchical communicators)
    Crosses, ///< one ring per rail, across nodes (hierarchical communicators)
  };
  Scope scope = Scope::Whole;
  int rounds = 1;          ///< 1: q-1 steps (reduce-scatter, all-gather); 2: 2(q-1) steps (all-reduce)
  double buffer_bytes = 0; ///< the buffer the phase's rings work on; a step moves buffer_bytes / q
  /// The switches reduce (NVLS, SHARP): instead of steps, each rank sends the whole buffer once
  /// towards the switch and receives the result (modelled as one transfer of buffer_bytes to the
  /// successor, which loads each rank's links as the switch traffic does) and pays the route latency
  /// twice, up and down.
  bool in_network = false;
  /// Latency of NCCL's double binary tree, 2 ceil(log2 q) route latencies, instead of the ring's one
  /// per step; bandwidth as the ring's. Flow level only (the per-step form pays a latency per step).
  bool tree_latency = false;
};

using RingPlan = std::vector<RingPhase>;

enum class Granularity { PerStep, FlowLevel };

/// Route latencies a flow-level phase of `steps` steps on a ring of `q` ranks pays in all: one per
/// step, or the tree's 2 ceil(log2 q) when that is fewer and the phase asks for it.
int flow_level_latencies(const RingPhase& phase, int steps, int q);

/// Runs `plan` as communicator rank `rank`, from that rank's actor.
void run_ring_plan(const RingPlan& plan, Granularity granularity, const Communicator& comm, int rank,
                   CollectiveCounters& counters);

} // namespace gpuscale::engine
