#pragma once
/// Reads one layer of a workload trace (an entry of `workload.layers`, or of a repeat group's
/// `layers`) into model::Layer: its fields, its kernels, and the checks that need only the layer.

#include "sim/config/MappingReader.hpp"
#include "sim/model/WorkloadTrace.hpp"

namespace gpuscale::config {

/// Every problem becomes a diagnostic of `layer`; the name is read as written (uniqueness and the
/// `{i}` of repeat groups are the layer list's business, LayerListReader).
model::Layer read_layer(MappingReader layer);

/// One entry of a layer's `kernels:` list (`op:` and its shape, `backward_factor:`; workloads/SCHEMA.md,
/// "Kernels"); nullopt when its op is unknown. Every problem becomes a diagnostic of `kernel`.
std::optional<model::Kernel> read_kernel(MappingReader kernel);

} // namespace gpuscale::config
