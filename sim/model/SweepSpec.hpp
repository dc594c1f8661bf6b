#pragma once
/// A sweep: lists of values for scenario keys, whose product over a base scenario gives the points to
/// simulate. Points are numbered by their position in the full product (skipped points keep their
/// number), so a point has the same number across resumes and shards. The axes vary slowest first in
/// the order platform, workload, the other swept keys as the sweep lists them, zero_stage, collective,
/// global_batch_size, micro_batch_size, gpus (fastest); index = mixed-radix number of the items'
/// positions in that order (docs/SWEEPS.md).

#include "sim/model/Scenario.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscale::model {

/// Why a combination of the product is not run (`skip_invalid: true`).
enum class SkipReason {
  GpuCount,  ///< more GPUs than the platform has, or not a multiple of the model-parallel group
  BatchSize, ///< global batch not a multiple of micro-batch x data-parallel replicas
  Layout,    ///< any other combination that does not fit (tp across nodes, a precision, an allocation)
};
std::string to_string(SkipReason reason);

struct SkippedPoint {
  std::int64_t index = 0;
  SkipReason reason = SkipReason::BatchSize;
  std::string detail; ///< the check's message, with the numbers involved
};

/// One runnable point: the scenario the point's values make, resolved exactly as `gpuscale run`
/// resolves the same scenario written as a file. Points share the files they name.
struct SweepPoint {
  std::int64_t index = 0;
  Scenario scenario; ///< resolved (batch shares, efficiencies)
  std::shared_ptr<const Platform> platform_file;
  std::shared_ptr<const WorkloadTrace> workload_file;
  std::shared_ptr<const ConvergenceTable> convergence; ///< with the calibrated per-run overhead; nullptr: none
  std::optional<HostInputCost> host_input;
  std::string scenario_text; ///< YAML of the equivalent single scenario (paths relative to the sweep file)
  const Calibration* calibration = nullptr; ///< as ResolvedScenario::calibration

  const Platform& platform() const { return *platform_file; }
  const WorkloadTrace& workload() const { return *workload_file; }
  /// Everything a simulation of this point needs.
  ResolvedScenario resolve() const
  {
    ResolvedScenario resolved;
    resolved.scenario = scenario;
    resolved.platform = *platform_file;
    resolved.workload = *workload_file;
    if (convergence)
      resolved.convergence = *convergence;
    resolved.host_input = host_input;
    resolved.calibration = calibration;
    return resolved;
  }
};

/// A sweep file, expanded and checked.
struct SweepSpec {
  std::string path;                ///< the sweep file as given
  std::string text;                ///< its content, which sweep_id hashes
  std::string sweep_id;            ///< sweep_id_of(text)
  std::string name;                ///< the base scenario's name
  std::int64_t points_total = 0;   ///< size of the product
  std::vector<std::string> axes;   ///< swept fields with more than one value, in index order
  bool skip_invalid = false;
  std::vector<SweepPoint> points;  ///< runnable points, by increasing index
  std::vector<SkippedPoint> skipped;

  /// Indices of the runnable points, increasing.
  std::vector<std::int64_t> runnable_indices() const;
};

/// FNV-1a 64-bit hash of `text` as 16 lower-case hex digits: the identity of a sweep in results files.
std::string sweep_id_of(std::string_view text);

/// Which shard of `shard_count` runs the k-th runnable point (0-based): k mod shard_count, so shards
/// differ by at most one point and each spans the whole range of GPU counts.
int shard_of_position(std::size_t runnable_position, int shard_count);

} // namespace gpuscale::model
