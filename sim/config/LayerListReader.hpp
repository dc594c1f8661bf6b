#pragma once
/// Reads a workload trace's `layers:` list: plain layers, and repeat groups that stand for `repeat`
/// consecutive copies of a block of layers (workloads/SCHEMA.md, "Repeated blocks"):
///
///     - repeat: 80            # copies of the block, an integer in [1, kMaxRepeat]
///       first_index: 0        # optional, default 0: {i} of the first copy
///       layers:               # the block, each layer as in a plain entry; "{i}" in a name is the copy's index
///         - name: "layers.{i}.input-norm"
///           ...
///
/// The group is expanded in order, so the trace is the one the block written out `repeat` times gives.
/// Each layer of a block is read once (its problems are reported once, at the block) and then copied.

#include "sim/config/ConfigError.hpp"
#include "sim/model/WorkloadTrace.hpp"

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace gpuscale::config {

/// Most copies one repeat group may ask for: far beyond any model's block count (Llama 2 70B: 80).
inline constexpr long long kMaxRepeat = 100'000;
/// Most layers plus kernels a trace may expand to (the largest shipped trace, Llama 2, has 885 layers
/// and 1,604 kernels): keeps a few bytes of counts from asking for gigabytes.
inline constexpr long long kMaxExpandedItems = 1'000'000;

/// The layers of `list` (a non-empty sequence at `path`), repeat groups expanded; every problem, including
/// a layer name that is not unique after expansion, becomes a diagnostic.
std::vector<model::Layer> read_layer_list(const YAML::Node& list, const std::string& file, const std::string& path,
                                          Diagnostics& diagnostics);

} // namespace gpuscale::config
