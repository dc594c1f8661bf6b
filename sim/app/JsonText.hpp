#pragma once
/// Writing JSON by hand for the commands' `--format json` output.

#include <string>

namespace gpuscale::app {

/// `text` as a JSON string literal: quoted, with quotes, backslashes and control characters escaped.
std::string json_string(const std::string& text);

} // namespace gpuscale::app
