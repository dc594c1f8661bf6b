#pragma once
/// All-to-all as NCCL runs it (ncclSend/ncclRecv to every peer in one group): each rank sends bytes/p
/// to every other rank, all p(p-1) flows at once, so the links they share are shared as the network
/// model shares them. Uncontended on a non-blocking switch where each GPU has one link of bandwidth B
/// up and one down (α the route latency): each link carries p-1 flows of S/p,
///   α + (p-1)/p · S/B.
/// The routes of all_to_all_route_pairs must exist.

#include "sim/engine/collectives/Communicator.hpp"

#include <utility>
#include <vector>

namespace gpuscale::engine {

/// Every ordered pair of distinct GPU ranks of `layout`: what an all-to-all sends on.
std::vector<std::pair<int, int>> all_to_all_route_pairs(const CommunicatorLayout& layout);

/// All-to-all of a `bytes` buffer per rank (bytes/p to each peer, the own share stays), run as
/// communicator rank `rank` from its actor.
void all_to_all(const Communicator& comm, int rank, double bytes, CollectiveCounters& counters);

} // namespace gpuscale::engine
