/// gpuscale: simulate distributed GPU training on SimGrid before booking hardware.
/// The only place that chooses exit codes: 0 success, 1 runtime failure, 2 bad input or usage.

#include "sim/app/CommandExit.hpp"
#include "sim/app/Commands.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/PrintableText.hpp"
#include "sim/results/ResultsFile.hpp"
#include "sim/run/Version.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

namespace {

/// An error message as it reaches the terminal: it may quote an input file, so config::printable.
void print_error(const char* prefix, const char* what)
{
  std::fprintf(stderr, "%s%s\n", prefix, gpuscale::config::printable(what).c_str());
}

} // namespace

int main(int argc, char** argv)
{
  CLI::App app{"gpuscale: simulate distributed GPU training (ZeRO, collectives, topology) on SimGrid"};
  app.set_version_flag("--version", gpuscale::run::gpuscale_version());
  app.require_subcommand(1);
  gpuscale::app::add_run_command(app);
  gpuscale::app::add_platform_command(app);
  gpuscale::app::add_workload_command(app);
  gpuscale::app::add_sweep_command(app);
  gpuscale::app::add_merge_command(app);
  gpuscale::app::add_frontier_command(app);
  gpuscale::app::add_mlperf_command(app);
  gpuscale::app::add_calibrate_command(app);
  gpuscale::app::add_validate_command(app);
  gpuscale::app::add_predict_command(app);
  gpuscale::app::add_compare_command(app);
  gpuscale::app::add_check_command(app);
  gpuscale::app::add_plan_command(app);
  gpuscale::app::add_nccl_tests_command(app);
  gpuscale::app::add_calibrate_network_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the message and has its own status per kind of error (105 for a missing --mlperf
    // folder, 106 for a missing required option, ...): usage errors are bad input, status 2, as
    // everywhere else; --help and --version stay 0.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const gpuscale::app::CommandExit& e) {
    print_error("gpuscale: ", e.what());
    return e.status();
  } catch (const gpuscale::config::ConfigError& e) {
    std::fprintf(stderr, "%s\n", e.what()); // one printable line per diagnostic (ConfigError)
    std::fprintf(stderr, "gpuscale: %zu error(s); nothing was written\n", e.diagnostics().size());
    return 2;
  } catch (const gpuscale::results::ResultsFileError& e) {
    print_error("gpuscale: error: ", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    print_error("gpuscale: error: ", e.what());
    return 2;
  } catch (const std::exception& e) {
    print_error("gpuscale: error: ", e.what());
    return 1;
  }
  return 0;
}
