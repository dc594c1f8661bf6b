#include "sim/engine/collectives/FlowRingAllReduce.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <cmath>

namespace gpuscale::engine {

void flow_ring_all_reduce(const Communicator& comm, int rank, double bytes, CollectiveCounters& counters)
{
  const int p = comm.size();
  if (p < 2 || bytes <= 0)
    return;
  const int steps = 2 * (p - 1);
  const auto volume_bytes = static_cast<uint64_t>(std::llround(static_cast<double>(steps) * bytes / p));
  auto send = comm.inboxes[static_cast<std::size_t>((rank + 1) % p)]->put_async(&counters, volume_bytes);
  comm.inboxes[static_cast<std::size_t>(rank)]->get<CollectiveCounters>();
  send->wait();
  // The flow paid one route latency; the per-step form pays one per step.
  simgrid::s4u::this_actor::sleep_for((steps - 1) * comm.next_route_latency_s[static_cast<std::size_t>(rank)]);
  counters.bytes_sent += static_cast<double>(volume_bytes);
  counters.bytes_received += static_cast<double>(volume_bytes);
}

} // namespace gpuscale::engine
