#pragma once
/// Ring reduce-scatter of a `bytes`-sized buffer (each rank ends with its reduced 1/p shard):
/// p-1 steps of bytes/p. Uncontended: (p-1)·α + (p-1)/p · S/B.

#include "sim/engine/collectives/RingSteps.hpp"

namespace gpuscale::engine {

void ring_reduce_scatter(const Communicator& comm, int rank, double bytes, Granularity granularity,
                         CollectiveCounters& counters);

} // namespace gpuscale::engine
