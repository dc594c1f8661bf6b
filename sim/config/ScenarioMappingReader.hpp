#pragma once
/// Reading the `scenario:` mapping of an already-parsed YAML document. Internal to the config layer
/// (it exposes yaml-cpp): read_scenario uses it for scenario files, read_sweep for every point of a sweep.

#include "sim/config/ConfigError.hpp"
#include "sim/config/ScenarioInputCache.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/ScenarioResolution.hpp"

#include <yaml-cpp/yaml.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace gpuscale::config {

/// A scenario mapping read and resolved, with the files it names shared through the cache.
struct ScenarioReading {
  model::Scenario scenario; ///< resolved (model::resolve_scenario) when the files could be read
  std::shared_ptr<const model::Platform> platform;       ///< nullptr: missing or bad
  std::shared_ptr<const model::WorkloadTrace> workload;  ///< nullptr: missing or bad
  std::shared_ptr<const model::ConvergenceTable> convergence_table; ///< as read; nullptr: none
  std::shared_ptr<const std::vector<model::HostInputCost>> host_costs; ///< nullptr: no table
  std::string host_costs_path; ///< where the workload's host-input table is looked for
  std::shared_ptr<const model::Calibration> network_calibration;      ///< nullptr: none named (or bad)
  model::ScenarioResolution resolution; ///< conflicts, convergence (calibrated), host pipeline

  /// What model::resolve_scenario needs to resolve this reading's scenario, or a variant of it (the
  /// same files), on `platform` (the reading's, or a subset of its node groups).
  model::ScenarioInputs resolution_inputs(const model::Platform& platform) const;

  /// Everything one simulation needs (copies the platform and workload). Only for a reading
  /// without diagnostics.
  model::ResolvedScenario resolved() const;
};

/// Every key a scenario mapping may have.
std::set<std::string> scenario_keys();

/// Reads the fields of `scenario_node` (reported under /scenario), then the files it names
/// (relative to `path`, through `inputs`), and resolves it (model::resolve_scenario, with the
/// embedded calibration for a scenario without `efficiency:`). Every problem, each conflict of the
/// resolution included, is added to `diagnostics` with its location; nothing is thrown for them.
/// read_scenario is this for a scenario file; read_sweep is this for every point of a sweep.
ScenarioReading read_scenario_point(const YAML::Node& scenario_node, const std::string& path,
                                    Diagnostics& diagnostics, ScenarioInputCache& inputs);

} // namespace gpuscale::config
