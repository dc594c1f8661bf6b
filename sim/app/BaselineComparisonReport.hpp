#pragma once
/// Prints validate's comparison of gpuscale with the two-parameter scaling regression
/// (analysis/calibration/BaselineComparison.hpp): per validation mode, the median / mean / p90
/// absolute percentage error of both models per benchmark and accelerator bucket, and the verdict.

#include "analysis/calibration/BaselineComparison.hpp"

#include <vector>

namespace gpuscale::app {

/// One table per mode on stdout, then a line per mode: does gpuscale beat the regression overall and
/// in every bucket, and by how much in median.
void print_baseline_comparison(const std::vector<analysis::ModeComparison>& comparisons);

} // namespace gpuscale::app
