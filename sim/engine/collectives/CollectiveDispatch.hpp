#pragma once
/// Runs one collective with a chosen algorithm, and chooses one as NCCL roughly would for `auto`.

#include "sim/engine/collectives/Communicator.hpp"
#include "sim/model/Scenario.hpp"

#include <string>

namespace gpuscale::engine {

enum class CollectiveOp { AllReduce, ReduceScatter, AllGather };
std::string to_string(CollectiveOp op);

/// Communicators larger than this run their rings at flow level under `auto`: the per-step form
/// costs O(p²) simulated communications (seconds at 1024 GPUs, see docs/BENCHMARKS.md).
inline constexpr int kAutoFlowLevelAbove = 64;
/// Below this size an all-reduce is latency-bound; `auto` takes halving-doubling (log p latencies,
/// NCCL's trees play that role) when the size is a power of two.
inline constexpr double kAutoLatencyBoundBytes = 1 << 20;

/// Resolves `auto` for a communicator of `size` ranks: hierarchical across nodes, ring inside one,
/// flow-level above kAutoFlowLevelAbove ranks, halving-doubling for small all-reduces.
model::CollectiveAlgorithm choose_algorithm(model::CollectiveAlgorithm requested, CollectiveOp op, int size,
                                            bool hierarchical, double bytes);

/// `bytes` is always the full (unsharded) buffer: the all-reduced tensor, the reduce-scatter input,
/// the all-gather output.
void run_collective(CollectiveOp op, model::CollectiveAlgorithm algorithm, const Communicator& comm, int rank,
                    double bytes, CollectiveCounters& counters);

} // namespace gpuscale::engine
