#pragma once
/// All-reduce inside one node whose switch reduces and multicasts (NVLink SHARP, NCCL's NVLS): each
/// GPU pushes its S bytes into the switch, which reduces them and multicasts the S-byte result, so
/// every GPU link carries S per direction instead of a ring's 2(g-1)/g S.
/// Uncontended: S/B + 2·alpha (up to the switch and back).

#include "sim/engine/collectives/RingPlan.hpp"

namespace gpuscale::engine {

RingPlan in_switch_all_reduce_plan(double bytes);

} // namespace gpuscale::engine
