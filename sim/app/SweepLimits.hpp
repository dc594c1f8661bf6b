#pragma once
/// Stops a sweep that is too large for this machine before it is expanded, rather than letting the
/// kernel kill it half-way: the sweep file is measured (config::measure_sweep), its memory and results
/// size estimated and set against the memory available and the free disk space at the output. Past a
/// limit, gpuscale asks on a terminal and refuses elsewhere; --yes goes on regardless.

#include "sim/config/SweepSize.hpp"

#include <string>
#include <vector>

namespace gpuscale::app {

/// A sweep larger than this many points is worth a confirmation whatever the machine.
inline constexpr long double kConfirmSweepPoints = 100'000;

struct SweepEstimate {
  long double points = 0;
  double memory_bytes = 0;  ///< the expanded points held in memory while the sweep runs
  double results_bytes = 0; ///< the results file once every point is written
};

struct MachineRoom {
  double available_memory_bytes = 0; ///< /proc/meminfo MemAvailable
  double free_disk_bytes = 0;        ///< available to this user in the output's folder
};

/// From the sweep file alone (an upper bound: points the sweep will skip are counted).
SweepEstimate estimate_sweep(const config::SweepSize& size);

/// What this machine has; a figure it cannot tell is +infinity (no concern raised on it).
MachineRoom machine_room(const std::string& output_path);

/// Why the sweep needs a confirmation, one sentence each; empty when it does not.
std::vector<std::string> sweep_size_concerns(const SweepEstimate& estimate, const MachineRoom& room);

/// Measures `sweep_path`; with concerns, goes on if `yes`, asks on a terminal (stdin and stderr), and
/// otherwise throws std::invalid_argument naming them and --yes. A declined confirmation throws
/// CommandExit(1). A file that cannot be measured passes: read_sweep then reports its problems.
void confirm_sweep_size(const std::string& sweep_path, const std::string& output_path, bool yes);

} // namespace gpuscale::app
