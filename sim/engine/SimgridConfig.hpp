#pragma once
/// Applies the scenario's SimGrid network-model settings and describes them for the results.

#include "sim/model/Scenario.hpp"

#include <string>
#include <vector>

namespace gpuscale::engine {

/// SimGrid --cfg items that realise `config`, in the order they are applied. CM02 with latency and
/// bandwidth factors 1 and no cross-traffic is the pure alpha-beta model; a large TCP-gamma keeps
/// SimGrid from capping each flow at gamma / (2 * latency).
std::vector<std::string> simgrid_config_items(const model::SimgridNetworkConfig& config);

/// The same items joined by spaces, as recorded in results.
std::string describe_simgrid_config(const model::SimgridNetworkConfig& config);

} // namespace gpuscale::engine
