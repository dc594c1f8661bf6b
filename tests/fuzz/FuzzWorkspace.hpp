#pragma once
/// A scratch copy of the repository's layout for fuzz inputs: <workspace>/platforms and
/// <workspace>/workloads hold links to every file and folder of the real ones, <workspace>/scenarios
/// is empty. A fuzzed scenario written to scenarios/ therefore resolves "../platforms/dgx-a100-1node.yaml"
/// as the shipped scenarios do, and a fuzzed cluster file in platforms/ finds catalog/*.yaml.
/// The workspace lives under /dev/shm when it exists (one per process, removed at exit).

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpuscale::fuzz {

/// Writes the fuzz input to <workspace>/<folder>/<name> (folder: platforms, workloads or scenarios)
/// and returns its path.
std::string write_input(const std::uint8_t* data, std::size_t size, const std::string& folder, const std::string& name);

} // namespace gpuscale::fuzz
