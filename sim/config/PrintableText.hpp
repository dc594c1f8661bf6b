#pragma once
/// The one rule for text that came from an input file (YAML, JSON, MLLOG logs, folder names) and may
/// reach a terminal: control characters are written as escapes, so a value can neither move the
/// cursor, clear the screen, set a window title, nor start a line of its own that reads like one of
/// gpuscale's (`gpuscale: error: ...`).

#include <string>
#include <string_view>

namespace gpuscale::config {

/// `text` with every control character escaped: newline as \n, tab as \t, carriage return as \r, the
/// others (escape, bell, DEL, ...) as \xHH; every other byte, UTF-8 included, unchanged. Applying it
/// twice changes nothing more.
std::string printable(std::string_view text);

} // namespace gpuscale::config
