#pragma once
/// How a command replaces a text output: the new content goes to a temporary file beside the target
/// and is renamed over it only once complete, so a failure leaves the old file (or none), never half a
/// file, and never the temporary.

#include <functional>
#include <ostream>
#include <string>

namespace gpuscale::app {

/// Writes `path` (checked beforehand by checked_output_path) with `write`, through
/// `.NAME.tmp.PID` in the same folder. The temporary is removed on every exit path: `write` throwing,
/// a failed write (full disk, file size limit) or a failed rename. Throws std::runtime_error naming
/// `path` and the cause when the file could not be written.
void write_replacing(const std::string& path, const std::function<void(std::ostream&)>& write);

} // namespace gpuscale::app
