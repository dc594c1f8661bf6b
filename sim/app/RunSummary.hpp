#pragma once
/// The human-readable summary `gpuscale run` prints.

#include "sim/run/ScenarioRunner.hpp"

#include <string>

namespace gpuscale::app {

/// The summary's "setup" line: ZeRO stage, precision, how the global batch is made up (uniform, over
/// tensor/context-parallel replicas, or an uneven per-GPU allocation) and the collective.
std::string format_setup_line(const model::Scenario& scenario, const results::RunRecord& record);
/// ", activation checkpointing", with "(N of M blocks)" where only some blocks are recomputed; "" without.
std::string checkpointing_phrase(const results::RunRecord& record);

/// The "interval" line: the 80 % intervals of the step and the time to train with their regime, or
/// why there is none.
std::string format_interval_line(const run::ScenarioOutcome& outcome);

std::string format_run_summary(const model::ResolvedScenario& scenario, const run::ScenarioOutcome& outcome);

} // namespace gpuscale::app
