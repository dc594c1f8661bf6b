#pragma once
/// Hierarchical all-reduce over g GPUs per node and n nodes (as NCCL's NVLS/tree-style and Horovod's
/// hierarchical all-reduce):
///   1. reduce-scatter inside each node (NVLink/NVSwitch):       (g-1)·α_i + (g-1)/g · S/B_i
///   2. all-reduce of the S/g shard across nodes, one ring per rail: 2(n-1)·α_e + 2(n-1)/n · S/(g·B_e)
///   3. all-gather inside each node:                              (g-1)·α_i + (g-1)/g · S/B_i
/// Falls back to the flat ring when the communicator is not hierarchical.

#include "sim/engine/collectives/RingPlan.hpp"

namespace gpuscale::engine {

/// How the cross-node phase runs: a ring (the formula above), a ring's bandwidth with the tree's
/// latency, or in the switches (SHARP); see RingPhase.
enum class CrossPhase { Ring, TreeLatency, InNetwork };

RingPlan hierarchical_all_reduce_plan(const CommunicatorShape& comm, double bytes, CrossPhase cross_phase);

} // namespace gpuscale::engine
