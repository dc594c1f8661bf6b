#pragma once
/// Splits a GPU's step into FLOP-bound work, roofline kernels and the optimizer's HBM traffic
/// (model::StepWork), kernel for kernel as build_step_program schedules them.

#include "sim/model/Scenario.hpp"
#include "sim/model/StepWork.hpp"

namespace gpuscale::engine {

/// The step of GPU rank 0 of `scenario` (MLPerf systems are homogeneous: every rank does the same);
/// with pipeline parallelism, of a GPU of the stage whose layers run the most FLOPs (the busiest
/// stage's program). At the scenario's efficiencies, busy_time_s() equals that program's kernel +
/// optimizer time.
model::StepWork decompose_step(const model::ResolvedScenario& scenario);

} // namespace gpuscale::engine
