#pragma once
/// Hierarchical all-gather: all-gather of the S/g shard across nodes along the rail, then all-gather
/// inside the node. (n-1)·α_e + (n-1)/n · S/(g·B_e) + (g-1)·α_i + (g-1)/g · S/B_i

#include "sim/engine/collectives/RingPlan.hpp"

namespace gpuscale::engine {

RingPlan hierarchical_all_gather_plan(const CommunicatorShape& comm, double bytes);

} // namespace gpuscale::engine
