#pragma once
/// Applies a calibration to a scenario that states no efficiencies of its own.

#include "sim/model/Calibration.hpp"
#include "sim/model/Scenario.hpp"

namespace gpuscale::config {

/// Sets the scenario's efficiencies to the calibration's for its benchmark, the generation of its
/// first node group's accelerator and its fabric class, and adds the calibrated per-run overhead to
/// the convergence table's run_start_overhead (when there is a table).
void apply_calibration(model::ResolvedScenario& resolved, const model::Calibration& calibration);

} // namespace gpuscale::config
