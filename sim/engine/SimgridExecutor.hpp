#pragma once
/// Executes a step on SimGrid: one host per GPU, one actor per GPU running its StepProgram and one
/// per communication stream running its collectives, flows sharing links as SimGrid's network model
/// shares them. SimGrid's engine is one per process: call at most once per process.

#include "sim/engine/StepSetup.hpp"
#include "sim/engine/StepTrace.hpp"

#include <vector>

namespace gpuscale::engine {

StepTrace execute_on_simgrid(const StepSetup& setup);

/// Same, recording every rank's events into `events` (resized to one per rank).
StepTrace execute_on_simgrid(const StepSetup& setup, std::vector<RankEvents>* events);

} // namespace gpuscale::engine
