#pragma once
/// Ring all-gather into a `bytes`-sized buffer (each rank contributes bytes/p): p-1 steps of bytes/p.
/// Uncontended: (p-1)·α + (p-1)/p · S/B.

#include "sim/engine/collectives/RingPlan.hpp"

namespace gpuscale::engine {

RingPlan ring_all_gather_plan(double bytes);

} // namespace gpuscale::engine
