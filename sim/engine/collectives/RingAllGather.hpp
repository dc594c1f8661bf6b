#pragma once
/// Ring all-gather into a `bytes`-sized buffer (each rank contributes bytes/p): p-1 steps of bytes/p.
/// Uncontended: (p-1)·α + (p-1)/p · S/B.

#include "sim/engine/collectives/RingSteps.hpp"

namespace gpuscale::engine {

void ring_all_gather(const Communicator& comm, int rank, double bytes, Granularity granularity,
                     CollectiveCounters& counters);

} // namespace gpuscale::engine
