#pragma once
/// Hierarchical reduce-scatter (g GPUs per node, n nodes): reduce-scatter inside the node, then
/// reduce-scatter of the S/g shard across nodes along the rail, leaving each rank S/p.
///   (g-1)·α_i + (g-1)/g · S/B_i + (n-1)·α_e + (n-1)/n · S/(g·B_e)

#include "sim/engine/collectives/RingPlan.hpp"

namespace gpuscale::engine {

RingPlan hierarchical_reduce_scatter_plan(const CommunicatorShape& comm, double bytes);

} // namespace gpuscale::engine
