// gpuscale check FILE...: validate inputs of any kind without simulating anything.

#include "sim/app/CatalogOption.hpp"
#include "sim/app/Commands.hpp"
#include "sim/mlperf/DataPaths.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/InputCheck.hpp"
#include "sim/config/PlatformReader.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::app {
namespace {

/// Checks every file, prints one line per valid one, then throws every problem of the others at once.
void check(const std::vector<std::string>& paths)
{
  std::vector<config::Diagnostic> problems;
  std::optional<model::Platform> catalog; // read once, for the first MLPerf system description
  for (const auto& path : paths) {
    try {
      if (!catalog && std::filesystem::path(path).extension() == ".json")
        catalog = config::read_platform(mlperf::catalog_path());
      const auto checked = config::check_input(path, catalog ? &*catalog : nullptr);
      fmt::print("{}: ok: {}\n", path, checked.summary);
    } catch (const config::ConfigError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty())
    throw config::ConfigError(std::move(problems));
}

} // namespace

void add_check_command(CLI::App& app)
{
  auto paths = std::make_shared<std::vector<std::string>>();
  CLI::App* command = app.add_subcommand(
      "check", "Validate input files of any kind (platform, catalog, workload, scenario, sweep, convergence table, "
               "host input costs, RCP .json) without simulating; exit 2 with every problem located if any");
  command->add_option("files", *paths, "Input files")->required();
  add_catalog_option(*command);
  command->callback([paths] { check(*paths); });
}

} // namespace gpuscale::app
