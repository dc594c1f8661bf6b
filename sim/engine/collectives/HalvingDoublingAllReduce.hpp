#pragma once
/// Rabenseifner's all-reduce (Thakur, Rabenseifner & Gropp, "Optimization of Collective Communication
/// Operations in MPICH", IJHPCA 2005): reduce-scatter by recursive halving, then all-gather by
/// recursive doubling; log2(p) pairwise exchanges each way. On a full-bisection network:
///   2·log2(p)·α + 2(p-1)/p · S/B
/// Far fewer latency terms than the ring at large p, which is what NCCL's trees buy for small
/// messages. Needs p a power of two; otherwise runs the ring.

#include "sim/engine/collectives/RingPlan.hpp"

namespace gpuscale::engine {

/// `execution`: its protocol's wire factor and per-step cost, and the fixed cost (RingExecution).
void halving_doubling_all_reduce(const Communicator& comm, int rank, double bytes, const RingExecution& execution,
                                 CollectiveCounters& counters);

} // namespace gpuscale::engine
