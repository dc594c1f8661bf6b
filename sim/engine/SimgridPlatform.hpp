#pragma once
/// Turns a TopologyGraph into a SimGrid platform: one host per GPU, one link per direction of every
/// graph edge that some route crosses, and explicit routes (computed on the graph) for the GPU
/// pairs that will communicate.

#include "sim/engine/SymmetryFold.hpp"
#include "sim/engine/TopologyGraph.hpp"

#include <simgrid/s4u/Host.hpp>

#include <utility>
#include <vector>

namespace gpuscale::engine {

struct SimgridPlatformSpec {
  std::vector<double> gpu_speed_flop_per_s; ///< per GPU rank: effective compute rate (peak x efficiency)
  std::vector<std::pair<int, int>> routes;   ///< (src rank, dst rank) pairs that need a route
  /// When folded: hosts for the simulated block only (the others alias their representative's) and
  /// the fold's quotient routes instead of `routes`.
  const SymmetryFold* fold = nullptr;
};

struct SimgridPlatform {
  std::vector<simgrid::s4u::Host*> gpu_hosts; ///< indexed by GPU rank (folded: the representative's host)
};

/// Must be called once, after the SimGrid engine is configured and before actors are created.
SimgridPlatform build_simgrid_platform(const TopologyGraph& topology, const SimgridPlatformSpec& spec);

} // namespace gpuscale::engine
