#include "sim/engine/collectives/RingAllReduce.hpp"

#include <simgrid/s4u/Comm.hpp>

#include <cmath>

namespace gpuscale::engine {

void ring_all_reduce(const Communicator& comm, int rank, double bytes, CollectiveCounters& counters)
{
  const int p = comm.size();
  if (p < 2 || bytes <= 0)
    return;
  const auto chunk_bytes = static_cast<uint64_t>(std::llround(bytes / p));
  simgrid::s4u::Mailbox* next = comm.inboxes[static_cast<std::size_t>((rank + 1) % p)];
  simgrid::s4u::Mailbox* mine = comm.inboxes[static_cast<std::size_t>(rank)];
  for (int step = 0; step < 2 * (p - 1); ++step) {
    auto send = next->put_async(&counters, chunk_bytes);
    mine->get<CollectiveCounters>();
    send->wait();
    counters.bytes_sent += static_cast<double>(chunk_bytes);
    counters.bytes_received += static_cast<double>(chunk_bytes);
  }
}

} // namespace gpuscale::engine
