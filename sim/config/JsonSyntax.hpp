#pragma once
/// Strict JSON (RFC 8259) for the JSON inputs (MLPerf RCP files, system descriptions), which are read
/// through yaml-cpp: YAML is nearly a superset of JSON, but yaml-cpp also accepts trailing commas,
/// keys given twice (the first silently wins), comments, single quotes and bare words. This checks
/// the text as JSON first and locates the first syntax error and every duplicate key.

#include "sim/config/ConfigError.hpp"

#include <string>

namespace gpuscale::config {

/// Records a located diagnostic for each problem of `text` as JSON; true if there is none.
bool check_json_syntax(const std::string& text, const std::string& display_name, Diagnostics& diagnostics);

} // namespace gpuscale::config
