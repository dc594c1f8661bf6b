#pragma once
/// Variants of one scenario file, as a search over layouts makes them (gpuscale plan): each variant is
/// resolved exactly as `gpuscale run` resolves the same scenario written to a file
/// (model::resolve_scenario, with the files the original names and the embedded calibration), so a
/// variant that `run` would refuse is refused here with the same conflicts; and each can be written
/// back as a scenario file (and, for a subset of the platform's node groups, a platform file) that
/// `run` reads into the very scenario that was simulated.

#include "sim/config/ScenarioInputCache.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/ScenarioResolution.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpuscale::config {

/// A variant resolved: `conflicts` empty when it can run, `resolved` then the scenario to simulate.
struct ResolvedVariant {
  std::vector<model::ScenarioConflict> conflicts;
  model::ResolvedScenario resolved;
  bool ok() const { return conflicts.empty(); }
};

class ScenarioVariants {
public:
  /// Reads `scenario_path` as read_scenario does; throws ConfigError with every problem.
  explicit ScenarioVariants(const std::string& scenario_path);
  ~ScenarioVariants();
  ScenarioVariants(const ScenarioVariants&) = delete;
  ScenarioVariants& operator=(const ScenarioVariants&) = delete;

  /// The scenario as the file gives it, resolved.
  const model::ResolvedScenario& base() const { return base_; }

  /// `variant` (base().scenario with fields changed; the batch split as written: micro_batch_size,
  /// batch_allocation) on `platform` (base().platform or a subset of its node groups), resolved as
  /// `run` resolves it: the convergence table as read, before the calibration's overhead and factor.
  ResolvedVariant resolve(model::Scenario variant, const model::Platform& platform) const;

  /// The scenario file of `variant`: the original's mapping with the layout keys (gpus, global batch,
  /// micro-batch or batch_allocation, zero_stage, tp, cp, sequence_parallel, tp_comm_overlap,
  /// activation_checkpointing[_blocks], cuda_graph) set to the variant's and every file path made
  /// absolute; `platform_path` replaces the platform ("": the original's).
  std::string scenario_yaml(const model::Scenario& variant, const std::string& platform_path) const;

  /// A platform file of the original platform's cluster restricted to `subset`'s node groups
  /// (imports made absolute), named `subset.name`.
  std::string platform_yaml(const model::Platform& subset) const;

private:
  std::string path_;
  struct Reading;
  std::unique_ptr<Reading> reading_;
  mutable ScenarioInputCache inputs_;
  model::ResolvedScenario base_;
};

} // namespace gpuscale::config
