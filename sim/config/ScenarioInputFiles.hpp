#pragma once
/// The files a scenario reads besides its own, so that what a command writes can be checked against
/// all of them (an output never replaces an input) and a sweep can record their contents.

#include "sim/model/Platform.hpp"
#include "sim/model/Scenario.hpp"

#include <string>
#include <vector>

namespace gpuscale::config {

/// The platform (and, if `platform` is given, the catalog files it imports), the workload, the
/// convergence table, the network calibration and the host-input table beside the workload
/// (ScenarioReader's rule), as the scenario names them; the ones it does not use are left out.
std::vector<std::string> scenario_input_files(const model::Scenario& scenario, const model::Platform* platform);

} // namespace gpuscale::config
