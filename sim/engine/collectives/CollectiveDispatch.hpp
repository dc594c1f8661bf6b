#pragma once
/// Runs one collective with a chosen algorithm, and chooses one as NCCL roughly would for `auto`.

#include "sim/engine/collectives/Communicator.hpp"
#include "sim/engine/collectives/RingPlan.hpp"
#include "sim/model/Scenario.hpp"

#include <string>

namespace gpuscale::engine {

enum class CollectiveOp { AllReduce, ReduceScatter, AllGather };
std::string to_string(CollectiveOp op);

/// Resolves `auto`: the flow-level forms at every size, hierarchical across nodes, ring inside one.
/// Each channel runs as its own flows, as NCCL's channels are independent rings; the per-step forms
/// (`ring`, `hierarchical`) cost O(p²) simulated communications and stay as the explicit validation
/// forms. Over the 229 MLPerf calibration results the two differ by at most 0.73 % of the step
/// (docs/BENCHMARKS_COLLECTIVES.md, "`auto` at flow level at every size"). plan_collective then takes
/// halving-doubling instead for an all-reduce where its estimate is lower (small messages). Any other
/// `requested` is returned as it is.
model::CollectiveAlgorithm choose_algorithm(model::CollectiveAlgorithm requested, bool hierarchical);

/// What `auto` adds to an all-reduce where the hardware allows it, as NCCL does: NVLS in a switch
/// that reduces (flat rings in one node), SHARP for the cross-node phase of a hierarchical one, and
/// otherwise the tree's latency for that phase.
enum class SwitchReduction { None, InSwitch, InNetwork, TreeLatency };

/// The shortcut for a collective `requested` as given and resolved to `chosen` by choose_algorithm,
/// on a communicator of `size` ranks whose switch / fabric can reduce.
SwitchReduction choose_switch_reduction(model::CollectiveAlgorithm requested, model::CollectiveAlgorithm chosen,
                                        CollectiveOp op, int size, bool in_switch_reduction, bool in_network_reduction);

/// The algorithm's name with its shortcut, as results record it: "nvls", "hierarchical_flow+sharp",
/// "hierarchical_flow+tree", or the plain name.
std::string describe_algorithm(model::CollectiveAlgorithm chosen, SwitchReduction shortcut);

/// How one rank runs a collective: Rabenseifner's pairwise exchanges, or a ring plan, and how (its
/// granularity, protocol, fixed cost, pipelining). Both executors run the same plan (run_collective
/// on SimGrid, time_collective analytically).
struct CollectivePlan {
  bool halving_doubling = false; ///< recursive halving then doubling (p a power of two); `rings` unused
  RingPlan rings;
  RingExecution execution;
  std::string algorithm = "none"; ///< what runs, as results name it (describe_algorithm)
  double estimate_s = 0;          ///< uncontended estimate the choices were made on
};

/// NCCL's Simple protocol moves data through each channel in chunks of its buffer (NCCL_BUFFSIZE,
/// 4 MiB) split into NCCL_STEPS = 8 slots: a pipelined algorithm's stages hand on 512 KiB per
/// channel at a time, which sets how long the pipeline takes to fill.
inline constexpr double kPipelineChunkBytes = 4.0 * 1024 * 1024 / 8;

/// The protocol NCCL's tuner would pick for `rings` on `shape`, run at `execution`'s granularity:
/// the faster by the uncontended estimate (route latencies, fixed cost, the Simple protocol's
/// per-step synchronisation against LL's doubled bytes), and the pipeline fill of a pipelined plan.
/// Fills `execution` but its granularity; returns the estimate.
double choose_execution(const RingPlan& rings, const CommunicatorShape& shape, bool pipelined, RingExecution& execution);

/// The plan for `op` of `bytes` with `requested` (auto resolved by choose_algorithm and
/// choose_switch_reduction) on a communicator of `shape`. Empty when there is nothing to do
/// (fewer than two ranks or no bytes).
CollectivePlan plan_collective(CollectiveOp op, model::CollectiveAlgorithm requested, const CommunicatorShape& shape,
                               double bytes);

/// `bytes` is always the full (unsharded) buffer: the all-reduced tensor, the reduce-scatter input,
/// the all-gather output.
void run_collective(CollectiveOp op, model::CollectiveAlgorithm algorithm, const Communicator& comm, int rank,
                    double bytes, CollectiveCounters& counters);

/// Steps of Rabenseifner's all-reduce on p ranks: log2 p each way.
int halving_doubling_steps(int p);

} // namespace gpuscale::engine
