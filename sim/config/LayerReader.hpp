#pragma once
/// Reads one layer of a workload trace (an entry of `workload.layers`, or of a repeat group's
/// `layers`) into model::Layer: its fields, its kernels, and the checks that need only the layer.

#include "sim/config/MappingReader.hpp"
#include "sim/model/WorkloadTrace.hpp"

namespace gpuscale::config {

/// Every problem becomes a diagnostic of `layer`; the name is read as written (uniqueness and the
/// `{i}` of repeat groups are the layer list's business, LayerListReader).
model::Layer read_layer(MappingReader layer);

} // namespace gpuscale::config
