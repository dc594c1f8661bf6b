#pragma once
/// The building block of every ring algorithm: `steps` rounds in which each rank sends `chunk_bytes`
/// to its successor and receives as much from its predecessor.
///   per step:   steps x (alpha + chunk/B)              O(p) communications per rank
///   flow level: one flow of steps x chunk bytes, then (steps - 1) route latencies
/// Both load the same links with the same volume, so contention with other traffic is simulated
/// either way; on an uncontended ring they give the same time.

#include "sim/engine/collectives/Communicator.hpp"

namespace gpuscale::engine {

enum class Granularity { PerStep, FlowLevel };

void ring_steps(const Communicator& comm, int rank, int steps, double chunk_bytes, Granularity granularity,
                CollectiveCounters& counters);

} // namespace gpuscale::engine
