#pragma once
/// Reads and writes calibration files (calibration/mlperf.yaml, written by `gpuscale calibrate`),
/// and gives the committed one, embedded in the binary at build time, as the default.

#include "sim/model/Calibration.hpp"

#include <string>

namespace gpuscale::config {

/// Throws ConfigError listing every problem (unknown keys, efficiencies outside (0, 1.5], bare
/// numbers for the overhead, batch sizes that are not positive integers).
model::Calibration read_calibration(const std::string& path);
model::Calibration read_calibration_text(const std::string& text, const std::string& display_name);

/// The calibration file's text (comments, then the calibration: mapping).
std::string format_calibration(const model::Calibration& calibration);

/// A network calibration's text (gpuscale calibrate-network): comments, the command and data, the
/// `network_fit:` summary and the `network:` and `collective:` groups; nothing fitted to MLPerf.
std::string format_network_calibration(const model::Calibration& calibration);

/// calibration/mlperf.yaml as it was when this binary was built (parsed once).
const model::Calibration& default_calibration();
/// Its text.
const char* embedded_calibration_text();

} // namespace gpuscale::config
