#pragma once
/// The file an `-o PATH` option writes, checked before any work is done.
///
/// Every output is written to a temporary file beside it and renamed over it, so it must be a
/// regular file (or not exist yet) in a folder gpuscale may create files in. Refused, each with
/// `PATH: error: cannot write the output: REASON` (a config::ConfigError, exit code 2):
///   a directory; a device, FIFO or socket (a FIFO would block, a device would be replaced by a
///   regular file); a symbolic link loop or a link to a missing file; a missing folder or one that is
///   not a folder; a folder or an existing file that cannot be written (permissions, read-only file
///   system, immutable file); one of the command's own inputs.
/// A symbolic link to an existing file is followed: the link stays, its target gets the new content.

#include <string>
#include <vector>

namespace gpuscale::app {

/// The path to write for `path` (its target when it is a symbolic link). Throws config::ConfigError
/// if it cannot be written safely, or if it is the same file as one of `inputs`.
std::string checked_output_path(const std::string& path, const std::vector<std::string>& inputs = {});

} // namespace gpuscale::app
