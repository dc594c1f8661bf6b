#include "sim/engine/collectives/RingBroadcast.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <cmath>

namespace gpuscale::engine {

void ring_broadcast(const Communicator& comm, int rank, int root, double bytes, CollectiveCounters& counters)
{
  const int p = comm.size();
  if (p < 2 || bytes <= 0)
    return;
  // Along the communicator's first channel (rank order inside a node, rail-aligned across nodes).
  const SimRingGroup& ring = comm.whole;
  const RingChannel& next = ring.layout.channels.front();
  int position = 0; // hops from the root along the ring
  for (int at = root; at != rank; at = next[static_cast<std::size_t>(at)])
    ++position;
  const auto size = static_cast<uint64_t>(std::llround(bytes));
  simgrid::s4u::CommPtr forwarding;
  if (position < p - 1) { // all but the last rank forward to their successor
    forwarding = ring.inboxes[0][static_cast<std::size_t>(next[static_cast<std::size_t>(rank)])]->put_async(&counters, size);
    counters.bytes_sent += static_cast<double>(size);
  }
  if (position > 0) { // all but the root receive from their predecessor
    ring.inboxes[0][static_cast<std::size_t>(rank)]->get<CollectiveCounters>();
    counters.bytes_received += static_cast<double>(size);
  }
  if (forwarding)
    forwarding->wait();
  // The flows paid one route latency; the chunks' way along the ring pays one per hop.
  if (p > 2)
    simgrid::s4u::this_actor::sleep_for((p - 2) * ring.next_route_latency_s[0][static_cast<std::size_t>(rank)]);
}

} // namespace gpuscale::engine
