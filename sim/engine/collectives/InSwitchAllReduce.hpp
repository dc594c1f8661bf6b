#pragma once
/// All-reduce inside one node whose switch reduces and multicasts (NVLink SHARP, NCCL's NVLS). Each
/// GPU reduces its 1/g share in the switch (multimem.ld_reduce: the switch reads that share from all
/// g GPUs, so every GPU's uplink carries S in all and its downlink S/g), then multicasts the reduced
/// share (multimem.st: uplink S/g, downlink S from the g shares): every GPU link carries (1 + 1/g) S
/// per direction, at NVLS's fraction of the line rate (LinkFractions), against a ring's 2(g-1)/g S
/// at the Simple protocol's. Uncontended: (1 + 1/g) S / (B x nvls fraction) + 2 alpha.
/// With 8 H100 (450 GB/s, fraction 0.6875): algbw 275 GB/s, busbw 481 GB/s, as NCCL measures.

#include "sim/engine/collectives/RingPlan.hpp"

namespace gpuscale::engine {

/// `nvls_wire_factor`: the NVSwitch link fraction over NVLS's (CollectiveCosts), so that the bytes
/// go at NVLS's fraction over links running at the link's.
RingPlan in_switch_all_reduce_plan(double bytes, int gpus, double nvls_wire_factor);

} // namespace gpuscale::engine
