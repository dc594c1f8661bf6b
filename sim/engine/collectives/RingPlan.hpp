#pragma once
/// Every ring-based algorithm (flat or hierarchical; all-reduce, reduce-scatter, all-gather) is a plan:
/// phases, each a set of ring groups that run at once (the whole communicator, every node's group, or
/// every rail's group across nodes), each group running its channels at once (CommunicatorLayout)
/// and doing rounds·(q-1) steps in which a member sends buffer/(q·channels) bytes on every channel to
/// its successor there and receives as much from its predecessor (q: the group's size). Each rank runs
/// the plan from its own actor, in one of two granularities that load the same links with the same
/// volume:
///   per step:   steps x (alpha + chunk/B)                      O(p) communications per rank
///   flow level: per phase and channel one flow of steps x chunk bytes; the (steps - 1) route
///               latencies the flows did not pay are slept once, at the end of the collective
/// On an uncontended ring both give the closed form; under contention both share links with the
/// rest of the traffic. Paying the latencies at the end rather than after each phase starts a
/// later phase a few microseconds early: it saves one blocking call per phase and rank, which is
/// most of the cost at thousands of GPUs (docs/BENCHMARKS_COLLECTIVES.md, "What bounds an unfolded step:
/// SimGrid's cost per flow").
///
/// How the phases follow each other (RingExecution): one after another, or, for the hierarchical
/// algorithms, pipelined as NCCL runs them in chunks: the intra-node phases (one lane, in order, on
/// the scale-up links) and the cross-node phases (the other lane, on the NICs) run at once, each
/// lane at its own pace, and the collective ends when the slower lane has, plus the pipeline's fill:
/// the time the first chunk takes through the faster lane. The intra-node phases of
/// a pipelined all-reduce (reduce-scatter of one chunk, all-gather of an earlier one) share the same
/// links in reality too; one after the other they load them with the same bytes.

#include "sim/engine/collectives/Communicator.hpp"

#include <vector>

namespace gpuscale::engine {

struct RingPhase {
  enum class Scope {
    Whole,   ///< the communicator's flat channels
    Locals,  ///< every node's group (hierarchical communicators)
    Crosses, ///< every rail's group across nodes (hierarchical communicators)
  };
  Scope scope = Scope::Whole;
  int rounds = 1;          ///< 1: q-1 steps (reduce-scatter, all-gather); 2: 2(q-1) steps (all-reduce)
  double buffer_bytes = 0; ///< the buffer the phase's groups work on; a step moves buffer_bytes / q
  /// The switches reduce (NVLS, SHARP): instead of steps, each member sends wire_bytes_factor x the
  /// buffer once towards the switch and receives the result (modelled as one transfer to its
  /// successor, which loads each member's links as the switch traffic does) and pays the route
  /// latency twice, up and down.
  bool in_network = false;
  /// What an in-network phase moves per byte of buffer: NVLS (1 + 1/g) x the NVSwitch / NVLS fraction
  /// ratio (InSwitchAllReduce.hpp); SHARP 1.
  double wire_bytes_factor = 1;
  /// Latency of NCCL's double binary tree, 2 ceil(log2 q) route latencies, instead of the ring's one
  /// per step; bandwidth as the ring's. Flow level only (the per-step form pays a latency per step).
  bool tree_latency = false;
};

using RingPlan = std::vector<RingPhase>;

enum class Granularity { PerStep, FlowLevel };

/// NCCL's protocols: Simple (full bandwidth, a synchronisation per step) or LL (the low-latency
/// protocol: no per-step synchronisation, half the bandwidth: a flag with every 4 bytes).
enum class Protocol { Simple, LowLatency };

/// How a plan runs: granularity, protocol, fixed cost and whether its phases are pipelined.
struct RingExecution {
  Granularity granularity = Granularity::PerStep;
  Protocol protocol = Protocol::Simple;
  double wire_factor = 1;  ///< bytes on the wire per byte of payload (model::kLowLatencyWireFactor under LL)
  double step_s = 0;       ///< paid per step besides the route latency (Simple's synchronisation)
  double fixed_s = 0;      ///< paid once per collective (launch, protocol start)
  bool pipelined = false;  ///< phases run at once, then fill_s
  double fill_s = 0;       ///< pipeline fill (RingExecution above)
};

/// Route latencies a flow-level phase of `steps` steps on a ring of `q` ranks pays in all: one per
/// step, or the tree's 2 ceil(log2 q) when that is fewer and the phase asks for it.
int flow_level_latencies(const RingPhase& phase, int steps, int q);

/// Transfers a member makes in `phase` on a group of `q` and the bytes of each, per channel.
struct PhaseTransfers {
  int transfers = 0;
  double bytes = 0;          ///< per transfer and channel, before rounding to whole bytes
  int paid_latencies = 0;    ///< route latencies the transfers pay themselves
  int latencies = 0;         ///< route latencies the phase costs in all
  int steps = 0;             ///< steps that pay RingExecution::step_s
};
PhaseTransfers phase_transfers(const RingPhase& phase, Granularity granularity, int q, int channels,
                               double wire_factor);

/// Runs `plan` as communicator rank `rank`, from that rank's actor.
void run_ring_plan(const RingPlan& plan, const RingExecution& execution, const Communicator& comm, int rank,
                   CollectiveCounters& counters);

} // namespace gpuscale::engine
