#pragma once
/// Writes a topology as a SimGrid platform XML file (DTD 4.1), so it can be inspected and reused
/// with other SimGrid tools: one host per GPU, one link per direction of every edge, and a route
/// for every ordered GPU pair (the same routes the simulator computes).

#include "sim/engine/TopologyGraph.hpp"

#include <ostream>
#include <vector>

namespace gpuscale::engine {

/// `gpu_speed_flop_per_s`: host speed of each GPU rank.
void write_simgrid_xml(const TopologyGraph& topology, const std::vector<double>& gpu_speed_flop_per_s,
                       std::ostream& out);

} // namespace gpuscale::engine
