#include "sim/engine/collectives/RingSteps.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <cmath>

namespace gpuscale::engine {

void ring_steps(const Communicator& comm, int rank, int steps, double chunk_bytes, Granularity granularity,
                CollectiveCounters& counters)
{
  const int p = comm.size();
  if (p < 2 || steps < 1 || chunk_bytes <= 0)
    return;
  simgrid::s4u::Mailbox* next = comm.inboxes[static_cast<std::size_t>((rank + 1) % p)];
  simgrid::s4u::Mailbox* mine = comm.inboxes[static_cast<std::size_t>(rank)];
  if (granularity == Granularity::FlowLevel) {
    const auto volume = static_cast<uint64_t>(std::llround(steps * chunk_bytes));
    auto send = next->put_async(&counters, volume);
    mine->get<CollectiveCounters>();
    send->wait();
    // The flow paid one route latency; the per-step form pays one per step.
    simgrid::s4u::this_actor::sleep_for((steps - 1) * comm.next_route_latency_s[static_cast<std::size_t>(rank)]);
    counters.bytes_sent += static_cast<double>(volume);
    counters.bytes_received += static_cast<double>(volume);
    return;
  }
  const auto chunk = static_cast<uint64_t>(std::llround(chunk_bytes));
  for (int step = 0; step < steps; ++step) {
    auto send = next->put_async(&counters, chunk);
    mine->get<CollectiveCounters>();
    send->wait();
    counters.bytes_sent += static_cast<double>(chunk);
    counters.bytes_received += static_cast<double>(chunk);
  }
}

} // namespace gpuscale::engine
