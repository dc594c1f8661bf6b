#pragma once
/// A communicator on the SimGrid platform: its hosts, its channels' mailboxes and routes, and, for
/// hierarchical algorithms, its intra-node and cross-node groups (CommunicatorLayout).

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

/// A RingGroup on the platform: per channel, where each member receives and the latency of its route
/// to its successor.
struct SimRingGroup {
  RingGroup layout;
  std::vector<std::vector<simgrid::s4u::Mailbox*>> inboxes; ///< [channel][member]
  std::vector<std::vector<double>> next_route_latency_s;    ///< [channel][member]

  int size() const { return layout.size(); }
  int channels() const { return static_cast<int>(layout.channels.size()); }
};

struct Communicator {
  struct Position {
    int group = 0; ///< index into locals / crosses
    int rank = 0;  ///< member index inside that group
  };

  std::string name;
  std::vector<simgrid::s4u::Host*> hosts; ///< by communicator rank
  SimRingGroup whole;
  std::vector<SimRingGroup> locals;  ///< intra-node groups (hierarchical only)
  std::vector<SimRingGroup> crosses; ///< cross-node groups, one per rail (hierarchical only)
  std::vector<Position> local_of;    ///< by communicator rank
  std::vector<Position> cross_of;
  CommunicatorShape layout_shape;

  int size() const { return static_cast<int>(hosts.size()); }
  bool hierarchical() const { return !locals.empty(); }
  const CommunicatorShape& shape() const { return layout_shape; }
  /// Mailbox where `rank` receives step `step` of a pairwise-exchange algorithm.
  simgrid::s4u::Mailbox* step_inbox(int rank, int step) const;
};

/// Builds the communicator of `layout` over the platform's GPU hosts (indexed by global GPU rank).
/// The routes of layout.route_pairs() must exist.
Communicator make_communicator(const std::string& name, const CommunicatorLayout& layout,
                               const std::vector<simgrid::s4u::Host*>& gpu_hosts);

/// Where the ring inboxes of a folded run are (SymmetryFold.hpp): a GPU's inbox is its
/// representative's, named by stream and GPU so that every group of the stream that holds the
/// representative resolves to the same mailbox.
struct FoldedMailboxes {
  std::string stream;             ///< unique per stream ("dp-grad", "tp", ...)
  std::vector<int> representative; ///< by global GPU rank: the simulated GPU whose inbox it uses
};

/// The same, for a folded run: inboxes by `mailboxes`, route latencies only for simulated members
/// (the others run no actor).
Communicator make_communicator(const std::string& name, const CommunicatorLayout& layout,
                               const std::vector<simgrid::s4u::Host*>& gpu_hosts, const FoldedMailboxes& mailboxes);

} // namespace gpuscale::engine
