#pragma once
/// Reads a convergence table (workloads/convergence/<benchmark>.yaml, format in
/// workloads/convergence/README.md) into model::ConvergenceTable.

#include "sim/model/ConvergenceTable.hpp"

#include <string>

namespace gpuscale::config {

/// Throws ConfigError listing every problem (unsorted points, a point key that does not match the
/// unit, dataset_samples missing for epochs, both first_at keys, unknown keys...).
model::ConvergenceTable read_convergence(const std::string& path);

/// The same for text that came from `display_name` (tests, stdin).
model::ConvergenceTable read_convergence_text(const std::string& text, const std::string& display_name);

} // namespace gpuscale::config
