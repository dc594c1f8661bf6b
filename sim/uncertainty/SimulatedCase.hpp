#pragma once
/// A simulated run seen as the calibration's surrogate sees a result (analysis::CalibrationCase):
/// its step decomposed into the parts the calibration's parameters rescale, so the parameters'
/// standard errors can be carried to its time without re-simulating.

#include "analysis/calibration/CalibrationCase.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/results/RunRecord.hpp"

#include <string>

namespace gpuscale::uncertainty {

/// The simulated part of a case (step decomposition, reference efficiencies, steps with evaluation
/// counted in steps) of `scenario` simulated into `r`; identity and the actual score are left empty.
/// Its family and generation are those of the first accelerator type the run uses, or `gpu_type`'s
/// when given (a catalog name the platform holds). `fixed_s` is the run's whole fixed overhead: a
/// caller whose scenario already holds a calibrated overhead subtracts it. The row's minutes become
/// the case's seconds.
analysis::CalibrationCase simulated_case(const model::ResolvedScenario& scenario, const results::RunRecord& r,
                                         const std::string& gpu_type = "");

} // namespace gpuscale::uncertainty
