#pragma once
/// Ring reduce-scatter of a `bytes`-sized buffer (each rank ends with its reduced 1/p shard):
/// p-1 steps of bytes/p. Uncontended: (p-1)·α + (p-1)/p · S/B.

#include "sim/engine/collectives/RingPlan.hpp"

namespace gpuscale::engine {

RingPlan ring_reduce_scatter_plan(double bytes);

} // namespace gpuscale::engine
