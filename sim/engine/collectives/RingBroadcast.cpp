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
  const int position = (rank - root + p) % p; // hops from the root along the ring
  const auto size = static_cast<uint64_t>(std::llround(bytes));
  simgrid::s4u::CommPtr forwarding;
  if (position < p - 1) { // all but the last rank forward to their successor
    forwarding = comm.inboxes[static_cast<std::size_t>((rank + 1) % p)]->put_async(&counters, size);
    counters.bytes_sent += static_cast<double>(size);
  }
  if (position > 0) { // all but the root receive from their predecessor
    comm.inboxes[static_cast<std::size_t>(rank)]->get<CollectiveCounters>();
    counters.bytes_received += static_cast<double>(size);
  }
  if (forwarding)
    forwarding->wait();
  // The flows paid one route latency; the chunks' way along the ring pays one per hop.
  if (p > 2)
    simgrid::s4u::this_actor::sleep_for((p - 2) * comm.next_route_latency_s[static_cast<std::size_t>(rank)]);
}

} // namespace gpuscale::engine
