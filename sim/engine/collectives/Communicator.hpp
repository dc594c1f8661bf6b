#pragma once
/// A group of GPU ranks that run collectives together, and what every collective counts.

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <string>
#include <vector>

namespace gpuscale::engine {

struct Communicator {
  std::string name;
  std::vector<simgrid::s4u::Host*> hosts;        ///< by communicator rank
  std::vector<simgrid::s4u::Mailbox*> inboxes;   ///< by communicator rank: where that rank receives
  std::vector<double> next_route_latency_s;      ///< latency of the route rank -> rank+1 (mod size)

  int size() const { return static_cast<int>(hosts.size()); }
};

/// What one rank did in collectives; collectives add to it.
struct CollectiveCounters {
  double bytes_sent = 0;
  double bytes_received = 0;
};

/// Creates the mailboxes of a communicator over `hosts` and reads route latencies from the platform.
/// Needs the routes rank -> rank+1 to exist.
Communicator make_ring_communicator(std::string name, std::vector<simgrid::s4u::Host*> hosts);

} // namespace gpuscale::engine
