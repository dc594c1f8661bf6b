#pragma once
/// Reads a sweep file: a base `scenario:` and a `sweep:` block of value lists, expanded into points.
///
///   scenario:                 # the base; fields named under sweep: may be left out here
///     name: resnet50-scaling
///     workload: ../workloads/resnet50.yaml
///     micro_batch_size: 32
///   sweep:
///     gpus: [1, 2, 4, 8]
///     platform: [../platforms/dgx-a100-1node.yaml, ../platforms/dgx-h100-1node.yaml]
///     global_batch_size: [256, 1024]
///     skip_invalid: true      # skip combinations whose GPU count or batch sizes do not fit
///
/// Every scenario key but `name` can be swept; a swept key may be left out of scenario:, or given there
/// too (the sweep's values replace it). Every other scenario key applies to all points. Each point is
/// the base scenario with its values in place, read and resolved by read_scenario_point exactly as
/// read_scenario reads a file (the files it names read once for all points). Format, numbering and
/// what is skipped: docs/SWEEPS.md.

#include "sim/model/SweepSpec.hpp"

#include <string>

namespace gpuscale::config {

/// Largest product a sweep may expand to.
inline constexpr long long kMaxSweepPoints = 1'000'000;

/// Reads and expands `path`; platform and workload paths are relative to it. Throws ConfigError with
/// every problem: bad lists and values (located at the item), the base scenario's errors, errors in
/// the files it names, and, without `skip_invalid: true`, each combination whose values do not fit
/// together (located at the list item most responsible).
model::SweepSpec read_sweep(const std::string& path);

} // namespace gpuscale::config
