#pragma once
/// Flow-level ring all-reduce: every rank sends one flow carrying all 2(p-1)/p·S bytes to its ring
/// successor, concurrently with all other ranks, then waits the remaining 2(p-1)-1 step latencies.
/// Same volume over the same links as the per-step ring, so contention with other traffic is still
/// simulated, but with O(p) instead of O(p²) communications.

#include "sim/engine/collectives/Communicator.hpp"

namespace gpuscale::engine {

void flow_ring_all_reduce(const Communicator& comm, int rank, double bytes, CollectiveCounters& counters);

} // namespace gpuscale::engine
