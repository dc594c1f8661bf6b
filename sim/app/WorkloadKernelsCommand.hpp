#pragma once
/// gpuscale workload kernels TIMINGS.yaml --accelerator NAME [--calibration FILE] [--benchmark NAME] [--list]:
/// kernel times measured on a GPU (calibration/measured/) beside the kernel time model.

#include <CLI/CLI.hpp>

namespace gpuscale::app {

/// Adds `kernels` under the `workload` command.
void add_workload_kernels_command(CLI::App& workload);

} // namespace gpuscale::app
