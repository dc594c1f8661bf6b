#pragma once
/// Ring all-reduce, step by step as NCCL runs it: p-1 reduce-scatter steps then p-1 all-gather steps,
/// each sending S/p bytes to the next rank and receiving S/p from the previous one.
/// Uncontended time: 2(p-1)·α + 2(p-1)/p · S/B  (nccl-tests PERFORMANCE.md, "algorithm bandwidth").

#include "sim/engine/collectives/Communicator.hpp"

namespace gpuscale::engine {

/// Called by every rank's communication actor at the same point of its schedule.
void ring_all_reduce(const Communicator& comm, int rank, double bytes, CollectiveCounters& counters);

} // namespace gpuscale::engine
