#include "sim/engine/RouteCosts.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

namespace gpuscale::engine {

RouteCosts::RouteCosts(const TopologyGraph& topology, const std::vector<std::pair<int, int>>& pairs,
                       const model::SimgridNetworkConfig& network)
{
  if (network.network_model != "CM02")
    throw std::invalid_argument("the analytical executor models SimGrid's CM02 network model only (scenario has '" +
                                network.network_model + "')");
  link_rates_Bps_.resize(2 * topology.edges_by_id.size());
  for (std::size_t id = 0; id < topology.edges_by_id.size(); ++id)
    link_rates_Bps_[2 * id] = link_rates_Bps_[2 * id + 1] = topology.graph[topology.edges_by_id[id]].usable_Bps();
  std::map<int, std::set<int>> destinations; // by source: one graph search per source, as the platform builder
  for (const auto& [src, dst] : pairs)
    if (src != dst)
      destinations[src].insert(dst);
  for (const auto& [src, dst_set] : destinations) {
    const std::vector<int> dsts(dst_set.begin(), dst_set.end());
    const auto routes = topology.routes_from(src, dsts);
    for (std::size_t i = 0; i < dsts.size(); ++i) {
      RouteCost cost;
      double bottleneck_Bps = std::numeric_limits<double>::infinity();
      for (const RouteHop& hop : routes[i]) {
        const TopologyEdge& edge = topology.graph[topology.edges_by_id[hop.edge_id]];
        cost.latency_s += edge.latency_s;
        bottleneck_Bps = std::min(bottleneck_Bps, edge.usable_Bps());
        cost.links.push_back(static_cast<std::uint32_t>(2 * hop.edge_id + (hop.forward ? 0 : 1)));
      }
      // SimGrid bounds a flow by its TCP window over the round trip (network/TCP-gamma).
      cost.window_Bps = cost.latency_s > 0 ? network.tcp_gamma_bytes / (2.0 * cost.latency_s)
                                           : std::numeric_limits<double>::infinity();
      cost.rate_Bps = std::min(bottleneck_Bps, cost.window_Bps);
      costs_[key(src, dsts[i])] = cost;
    }
  }
}

std::uint64_t RouteCosts::key(int src_rank, int dst_rank)
{
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src_rank)) << 32) |
         static_cast<std::uint32_t>(dst_rank);
}

const RouteCost& RouteCosts::cost(int src_rank, int dst_rank) const
{
  const auto it = costs_.find(key(src_rank, dst_rank));
  if (it == costs_.end())
    throw std::logic_error("no route cost from GPU " + std::to_string(src_rank) + " to GPU " + std::to_string(dst_rank));
  return it->second;
}

double RouteCosts::transfer_s(int src_rank, int dst_rank, double bytes) const
{
  const RouteCost& c = cost(src_rank, dst_rank);
  return c.latency_s + bytes / c.rate_Bps;
}

double RouteCosts::shared_transfer_s(int src_rank, int dst_rank, double bytes, const std::vector<int>& load) const
{
  const RouteCost& c = cost(src_rank, dst_rank);
  double rate_Bps = c.window_Bps;
  for (std::uint32_t link : c.links)
    rate_Bps = std::min(rate_Bps, link_rates_Bps_[link] / std::max(1, load[link]));
  return c.latency_s + bytes / rate_Bps;
}

} // namespace gpuscale::engine
