#pragma once
/// The size of a sweep before it is expanded: how many points its lists make and how much text each
/// point carries. Lets the command line refuse (or ask about) a sweep too large for the machine before
/// read_sweep builds every point in memory.

#include <optional>
#include <string>

namespace gpuscale::config {

struct SweepSize {
  long double points = 1;          ///< product of the lengths of the lists under sweep: (may exceed any integer)
  std::size_t scenario_bytes = 0;  ///< the base scenario as YAML text, which every point copies
};

/// Reads only `path` itself. nullopt when it cannot be read or has no scenario: and sweep: mappings;
/// read_sweep then reports why.
std::optional<SweepSize> measure_sweep(const std::string& path);

} // namespace gpuscale::config
