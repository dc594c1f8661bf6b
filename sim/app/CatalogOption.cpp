#include "sim/app/CatalogOption.hpp"

#include "sim/config/PlatformReader.hpp"

#include <string>
#include <vector>

namespace gpuscale::app {

void add_catalog_option(CLI::App& command)
{
  // Runs while the command line is parsed, before the command's callback reads any platform.
  command
      .add_option_function<std::vector<std::string>>(
          "--catalog", [](const std::vector<std::string>& paths) { config::set_user_catalogs(paths); },
          "Catalog file (accelerators:, node_types: as in platforms/SCHEMA.md) whose entries extend the built-in "
          "catalog and replace entries of the same name")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->allow_extra_args(false); // one file per --catalog: `check --catalog c.yaml a.json` checks a.json
}

} // namespace gpuscale::app
