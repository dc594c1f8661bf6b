#pragma once
/// A simulated run seen as the calibration's surrogate sees a result (analysis::CalibrationCase):
/// its step decomposed into the parts the calibration's parameters rescale, so the parameters'
/// standard errors can be carried to its time without re-simulating.

#include "analysis/calibration/CalibrationCase.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/results/RunRecord.hpp"

namespace gpuscale::uncertainty {

/// The simulated part of a case (step decomposition, reference efficiencies, steps with evaluation
/// counted in steps) of `scenario` simulated into `r`, on the accelerator type of the first node the
/// run uses; identity and the actual score are left empty. `fixed_s` is the run's whole fixed
/// overhead: a caller whose scenario already holds a calibrated overhead subtracts it. The row's
/// minutes become the case's seconds.
analysis::CalibrationCase simulated_case(const model::ResolvedScenario& scenario, const results::RunRecord& r);

/// `c` seen on the accelerator type of `node` (a node type the run uses): its family, generation,
/// reference efficiencies and scale-up link, prepared again. The step decomposition stays rank 0's,
/// so a mixed run is not decomposed once per type.
void set_node_type(analysis::CalibrationCase& c, const model::ResolvedScenario& scenario, const model::NodeType& node);

} // namespace gpuscale::uncertainty
