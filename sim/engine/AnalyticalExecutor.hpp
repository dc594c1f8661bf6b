#pragma once
/// Executes a step without a simulator: each GPU runs its StepProgram exactly as its SimGrid actor
/// does (kernels take FLOP / (peak x compute efficiency), memory-bound work its stated seconds), each
/// communication stream runs its collectives in submission order from when they are both submitted
/// and the previous one is done, and a wait resumes when the awaited collective ends. Collectives are
/// timed by time_collective: α–β per transfer along the platform's routes, no contention.
///
/// So on a platform and schedule where no two transfers cross one link at once (one collective at a
/// time per link: no oversubscribed fabric, no NIC shared by concurrent rings, no stream overlapping
/// another on the same GPU links) the result equals execute_on_simgrid's; elsewhere it is the
/// contention-free bound SimGrid's time exceeds (tests/engine/Executors_test.cpp measures by how
/// much). Needs no SimGrid engine, so a process may run it any number of times.

#include "sim/engine/StepSetup.hpp"
#include "sim/engine/StepTrace.hpp"

namespace gpuscale::engine {

/// Throws std::invalid_argument for a network model other than CM02 (see RouteCosts).
StepTrace execute_analytically(const StepSetup& setup);

} // namespace gpuscale::engine
