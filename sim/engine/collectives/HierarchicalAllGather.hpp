#pragma once
/// Hierarchical all-gather: all-gather of the S/g shard across nodes along the rail, then all-gather
/// inside the node. (n-1)·α_e + (n-1)/n · S/(g·B_e) + (g-1)·α_i + (g-1)/g · S/B_i

#include "sim/engine/collectives/RingSteps.hpp"

namespace gpuscale::engine {

void hierarchical_all_gather(const Communicator& comm, int rank, double bytes, Granularity granularity,
                             CollectiveCounters& counters);

} // namespace gpuscale::engine
