#pragma once
/// `--catalog FILE`: the user's own accelerators and node types (catalog schema, platforms/SCHEMA.md),
/// extending the built-in catalog and replacing entries of the same name, for every platform the
/// command reads (config::set_user_catalogs).

#include <CLI/CLI.hpp>

namespace gpuscale::app {

/// Adds `--catalog FILE` to `command` (repeatable; a name two of the user's files define is an error).
void add_catalog_option(CLI::App& command);

} // namespace gpuscale::app
