#pragma once
/// The human-readable summary `gpuscale run` prints.

#include "sim/app/ScenarioRunner.hpp"

#include <string>

namespace gpuscale::app {

std::string format_run_summary(const model::ResolvedScenario& scenario, const ScenarioOutcome& outcome);

} // namespace gpuscale::app
