#pragma once
/// Each subcommand registers itself on the CLI11 app and runs through the callback it installs.
/// Callbacks report failure by throwing; main() maps exceptions to messages and exit codes.

#include <CLI/CLI.hpp>

namespace gpuscale::app {

void add_run_command(CLI::App& app);
void add_platform_command(CLI::App& app);
void add_workload_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_frontier_command(CLI::App& app);
void add_mlperf_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_predict_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_nccl_tests_command(CLI::App& app);
void add_calibrate_network_command(CLI::App& app);
void add_compare_command(CLI::App& app);


} // namespace gpuscale::app
