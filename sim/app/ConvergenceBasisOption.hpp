#pragma once
/// `--convergence runs|table`, shared by calibrate and validate: at which samples to converge the fit
/// compares each MLPerf result (analysis::ParameterSpace::ConvergenceBasis; docs/CALIBRATION.md,
/// "Convergence as submitted").

#include "analysis/calibration/CalibrationSurrogate.hpp"

#include <CLI/CLI.hpp>

namespace gpuscale::app {

/// Adds `--convergence` to `command`, parsed into `basis` (which keeps its value, the default, when the
/// option is absent).
void add_convergence_basis_option(CLI::App& command, analysis::ParameterSpace::ConvergenceBasis& basis);

} // namespace gpuscale::app
