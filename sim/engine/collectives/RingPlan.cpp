#include "sim/engine/collectives/RingPlan.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <algorithm>
#include <cmath>

namespace gpuscale::engine {
namespace {

/// `transfers` times: send `bytes` to the successor, receive as much from the predecessor.
void exchange_with_neighbours(const Communicator& ring, int rank, int transfers, uint64_t bytes,
                              CollectiveCounters& counters)
{
  const int q = ring.size();
  simgrid::s4u::Mailbox* next = ring.inboxes[static_cast<std::size_t>((rank + 1) % q)];
  simgrid::s4u::Mailbox* mine = ring.inboxes[static_cast<std::size_t>(rank)];
  for (int i = 0; i < transfers; ++i) {
    auto send = next->put_async(&counters, bytes);
    mine->get<CollectiveCounters>();
    send->wait();
    counters.bytes_sent += static_cast<double>(bytes);
    counters.bytes_received += static_cast<double>(bytes);
  }
}

int ceil_log2(int value)
{
  int log = 0;
  while ((1 << log) < value)
    ++log;
  return log;
}

} // namespace

int flow_level_latencies(const RingPhase& phase, int steps, int q)
{
  return phase.tree_latency ? std::min(steps, 2 * ceil_log2(q)) : steps;
}

void run_ring_plan(const RingPlan& plan, Granularity granularity, const Communicator& comm, int rank,
                   CollectiveCounters& counters)
{
  double unpaid_latency_s = 0;
  for (const RingPhase& phase : plan) {
    const Communicator* ring = &comm;
    int ring_rank = rank;
    if (phase.scope != RingPhase::Scope::Whole) {
      const bool local = phase.scope == RingPhase::Scope::Locals;
      const auto where = (local ? comm.local_of : comm.cross_of)[static_cast<std::size_t>(rank)];
      ring = &(local ? comm.locals : comm.crosses)[static_cast<std::size_t>(where.group)];
      ring_rank = where.rank;
    }
    const int q = ring->size();
    if (q < 2 || phase.buffer_bytes <= 0)
      continue;
    const double route_latency_s = ring->next_route_latency_s[static_cast<std::size_t>(ring_rank)];
    if (phase.in_network) {
      exchange_with_neighbours(*ring, ring_rank, 1, static_cast<uint64_t>(std::llround(phase.buffer_bytes)), counters);
      unpaid_latency_s += route_latency_s;
      continue;
    }
    const int steps = phase.rounds * (q - 1);
    const double chunk_bytes = phase.buffer_bytes / q;
    if (granularity == Granularity::PerStep) {
      exchange_with_neighbours(*ring, ring_rank, steps, static_cast<uint64_t>(std::llround(chunk_bytes)), counters);
    } else {
      exchange_with_neighbours(*ring, ring_rank, 1, static_cast<uint64_t>(std::llround(steps * chunk_bytes)),
                               counters);
      const int latencies = flow_level_latencies(phase, steps, q);
      unpaid_latency_s += (latencies - 1) * route_latency_s;
    }
  }
  if (unpaid_latency_s > 0)
    simgrid::s4u::this_actor::sleep_for(unpaid_latency_s);
}

} // namespace gpuscale::engine
