#pragma once
/// Loading a YAML file with its syntax errors turned into located diagnostics.

#include "sim/config/ConfigError.hpp"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

namespace gpuscale::config {

/// Largest input file accepted; bigger files are refused before parsing (a 10 GB line must not
/// exhaust memory).
inline constexpr std::size_t kMaxYamlFileBytes = 16 * 1024 * 1024;

/// Parses `path`. On failure records a diagnostic (file, line, column) and returns nullopt.
std::optional<YAML::Node> load_yaml_file(const std::string& path, Diagnostics& diagnostics);

/// Parses YAML text that came from `display_name` (tests, stdin).
std::optional<YAML::Node> load_yaml_text(const std::string& text, const std::string& display_name,
                                         Diagnostics& diagnostics);

/// JSON text (MLPerf RCP files and system descriptions): checked as strict JSON (no trailing commas,
/// no key given twice; see JsonSyntax.hpp), then parsed like YAML.
std::optional<YAML::Node> load_json_text(const std::string& text, const std::string& display_name,
                                         Diagnostics& diagnostics);
std::optional<YAML::Node> load_json_file(const std::string& path, Diagnostics& diagnostics);

/// Why the file a key names cannot be read as an input, as the end of a sentence about it ("does
/// not exist", "is a directory", "is not a regular file (a device, pipe or socket)", "is empty"), or
/// nullopt when it can: lets a reader report the problem at the key instead of in the file.
std::optional<std::string> referenced_file_problem(const std::string& path);

/// Reads a whole file; nullopt (and a diagnostic) if it cannot be read or is too large.
std::optional<std::string> read_text_file(const std::string& path, Diagnostics& diagnostics);

} // namespace gpuscale::config
