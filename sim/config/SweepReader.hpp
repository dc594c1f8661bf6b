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
/// Swept keys: gpus, platform, workload, zero_stage, global_batch_size, micro_batch_size, collective.
/// A swept key may be left out of scenario:, or given there too (the sweep's values replace it). Every
/// other scenario key applies to all points. Points are numbered as in SweepSpec.hpp; the platform
/// and workload files of each pair are read once, with read_scenario's checks; the checks that depend
/// on a point's values (GPU count against the platform and tp x cp, batch divisibility) run per point.

#include "sim/model/SweepSpec.hpp"

#include <string>

namespace gpuscale::config {

/// Largest product a sweep may expand to.
inline constexpr long long kMaxSweepPoints = 1'000'000;

/// Reads and expands `path`; platform and workload paths are relative to it. Throws ConfigError with
/// every problem: bad lists (located at the item), the base scenario's errors, errors in the files
/// it names, and, without `skip_invalid: true`, each combination whose GPU count or batch sizes do not
/// fit (located at the list item responsible).
model::SweepSpec read_sweep(const std::string& path);

} // namespace gpuscale::config
