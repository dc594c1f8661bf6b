#pragma once
/// The file an `-o PATH` option writes, checked before any work is done.
///
/// Every output is written to a temporary file beside it and renamed over it, so it must be a
/// regular file (or not exist yet) in a folder gpuscale may create files in. Refused, each with
/// `PATH: error: cannot write the output: REASON` (a config::ConfigError, exit code 2):
///   a directory; a device, FIFO or socket (a FIFO would block, a device would be replaced by a
///   regular file); a symbolic link loop or a link to a missing file; a missing folder or one that is
///   not a folder; a folder or an existing file that cannot be written (permissions, read-only file
///   system, immutable file); one of the command's own inputs, or a path inside a folder the command
///   reads (an `--mlperf` folder, a results repository): a new file there would be read back next time.
/// A symbolic link to an existing file is followed: the link stays, its target gets the new content.
/// `inputs` are every file and folder the command reads (the catalogs a platform imports included);
/// "" entries are ignored, so an option left out can be passed as is.

#include <string>
#include <vector>

namespace gpuscale::app {

/// The path to write for `path` (its target when it is a symbolic link). Throws config::ConfigError
/// if it cannot be written safely, if it is the same file as one of `inputs`, or lies inside one of
/// them that is a folder.
std::string checked_output_path(const std::string& path, const std::vector<std::string>& inputs = {});

/// The folder an `-o DIR` option fills (created with its parents if missing), checked before any work:
/// refused if it is not a folder, if it (or the nearest existing folder above it) cannot be written,
/// or if it holds one of `inputs` (the command replaces files in it).
std::string checked_output_folder(const std::string& path, const std::vector<std::string>& inputs);

/// checked_output_path for a results file rows are appended to: an existing file must also be a
/// gpuscale results file of this schema (results::ResultsFileError otherwise, exit code 2), so that an
/// empty or foreign file is refused before the simulation, not after it.
std::string checked_results_path(const std::string& path, const std::vector<std::string>& inputs);

} // namespace gpuscale::app
