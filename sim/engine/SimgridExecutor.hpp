#pragma once
/// Executes a step on SimGrid: one host per GPU, one actor per GPU running its StepProgram and one
/// per communication stream running its collectives, flows sharing links as SimGrid's network model
/// shares them. SimGrid's engine is one per process: call at most once per process.

#include "sim/engine/StepSetup.hpp"
#include "sim/engine/StepTrace.hpp"

namespace gpuscale::engine {

StepTrace execute_on_simgrid(const StepSetup& setup);

} // namespace gpuscale::engine
