#pragma once
/// Ring all-reduce of a `bytes`-sized buffer as NCCL runs it: p-1 reduce-scatter steps then p-1
/// all-gather steps of bytes/p each. Uncontended: 2(p-1)·α + 2(p-1)/p · S/B
/// (nccl-tests doc/PERFORMANCE.md, "algorithm bandwidth" vs "bus bandwidth").

#include "sim/engine/collectives/RingPlan.hpp"

namespace gpuscale::engine {

RingPlan ring_all_reduce_plan(double bytes);

} // namespace gpuscale::engine
