#pragma once
/// A communicator on the SimGrid platform: its hosts, where each rank receives, and, for hierarchical
/// algorithms, its intra-node and cross-node sub-communicators.

#include "sim/engine/collectives/CommunicatorLayout.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <string>
#include <vector>

namespace gpuscale::engine {

/// What one rank did in collectives; collectives add to it.
struct CollectiveCounters {
  double bytes_sent = 0;
  double bytes_received = 0;
};

struct Communicator {
  struct Position {
    int group = 0; ///< index into locals / crosses
    int rank = 0;  ///< rank inside that sub-communicator
  };

  std::string name;
  std::vector<simgrid::s4u::Host*> hosts;      ///< by communicator rank
  std::vector<simgrid::s4u::Mailbox*> inboxes; ///< ring traffic to each rank
  std::vector<double> next_route_latency_s;    ///< latency of the route rank -> rank+1 (mod size)
  std::vector<Communicator> locals;            ///< intra-node sub-communicators (hierarchical only)
  std::vector<Communicator> crosses;           ///< cross-node sub-communicators (hierarchical only)
  std::vector<Position> local_of;              ///< by communicator rank
  std::vector<Position> cross_of;
  bool in_switch_reduction = false;  ///< see CommunicatorLayout
  bool in_network_reduction = false;

  int size() const { return static_cast<int>(hosts.size()); }
  bool hierarchical() const { return !locals.empty(); }
  CommunicatorShape shape() const;
  /// Mailbox where `rank` receives step `step` of a pairwise-exchange algorithm.
  simgrid::s4u::Mailbox* step_inbox(int rank, int step) const;
};

/// Builds the communicator of `layout` over the platform's GPU hosts (indexed by global GPU rank).
/// The routes of layout.route_pairs() must exist.
Communicator make_communicator(const std::string& name, const CommunicatorLayout& layout,
                               const std::vector<simgrid::s4u::Host*>& gpu_hosts);

} // namespace gpuscale::engine
