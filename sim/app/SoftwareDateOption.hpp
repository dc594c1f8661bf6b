#pragma once
/// `--software-date first-run|round|none`, shared by calibrate and validate: how each MLPerf result is
/// dated for software maturity (mlperf::SoftwareDateSource; docs/CALIBRATION.md, "Software maturity").

#include "sim/mlperf/CalibrationCases.hpp"

#include <CLI/CLI.hpp>

namespace gpuscale::app {

/// Adds `--software-date` to `command`, parsed into `source` (which keeps its value, the default,
/// when the option is absent).
void add_software_date_option(CLI::App& command, mlperf::SoftwareDateSource& source);

} // namespace gpuscale::app
