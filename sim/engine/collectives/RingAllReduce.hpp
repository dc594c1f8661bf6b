#pragma once
/// Ring all-reduce of a `bytes`-sized buffer as NCCL runs it: p-1 reduce-scatter steps then p-1
/// all-gather steps of bytes/p each. Uncontended: 2(p-1)·α + 2(p-1)/p · S/B
/// (nccl-tests doc/PERFORMANCE.md, "algorithm bandwidth" vs "bus bandwidth").

#include "sim/engine/collectives/RingSteps.hpp"

namespace gpuscale::engine {

void ring_all_reduce(const Communicator& comm, int rank, double bytes, Granularity granularity,
                     CollectiveCounters& counters);

} // namespace gpuscale::engine
