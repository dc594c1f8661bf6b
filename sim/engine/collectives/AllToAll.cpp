#include "sim/engine/collectives/AllToAll.hpp"

#include <simgrid/s4u/Comm.hpp>

#include <cmath>
#include <string>

namespace gpuscale::engine {
namespace {

/// Where `receiver` takes what `sender` sends it: one mailbox per pair, so a message is never matched
/// with another sender's (they all have the same size now, but need not in a later call).
simgrid::s4u::Mailbox* pair_inbox(const Communicator& comm, int receiver, int sender)
{
  return simgrid::s4u::Mailbox::by_name(comm.name + "/" + std::to_string(receiver) + "/all-to-all-from" +
                                        std::to_string(sender));
}

} // namespace

std::vector<std::pair<int, int>> all_to_all_route_pairs(const CommunicatorLayout& layout)
{
  std::vector<std::pair<int, int>> pairs;
  for (int src : layout.gpu_ranks)
    for (int dst : layout.gpu_ranks)
      if (src != dst)
        pairs.emplace_back(src, dst);
  return pairs;
}

void all_to_all(const Communicator& comm, int rank, double bytes, CollectiveCounters& counters)
{
  const int p = comm.size();
  if (p < 2 || bytes <= 0)
    return;
  const auto share_bytes = static_cast<uint64_t>(std::llround(bytes / p));
  std::vector<simgrid::s4u::CommPtr> transfers;
  std::vector<CollectiveCounters*> received(static_cast<std::size_t>(p), nullptr);
  transfers.reserve(2 * static_cast<std::size_t>(p - 1));
  // Every receive is posted before any wait: with a blocking receive per peer the flows would run one
  // after another instead of sharing the links at once.
  for (int peer = 0; peer < p; ++peer) {
    if (peer == rank)
      continue;
    transfers.push_back(pair_inbox(comm, peer, rank)->put_async(&counters, share_bytes));
    transfers.push_back(pair_inbox(comm, rank, peer)->get_async<CollectiveCounters>(&received[static_cast<std::size_t>(peer)]));
  }
  simgrid::s4u::Comm::wait_all(transfers);
  counters.bytes_sent += static_cast<double>(share_bytes) * (p - 1);
  counters.bytes_received += static_cast<double>(share_bytes) * (p - 1);
}

} // namespace gpuscale::engine
