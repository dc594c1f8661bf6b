#include "sim/engine/SimgridPlatform.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <map>
#include <set>
#include <stdexcept>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {
namespace {

/// Creates the two directed links of an edge on first use, so links no route crosses cost nothing.
class LinkFactory {
public:
  LinkFactory(sg4::NetZone* zone, const TopologyGraph& topology)
      : zone_(zone), topology_(topology), links_(2 * topology.edges_by_id.size(), nullptr)
  {
  }

  sg4::Link* link(const RouteHop& hop)
  {
    sg4::Link*& slot = links_[2 * hop.edge_id + (hop.forward ? 0 : 1)];
    if (slot == nullptr) {
      const TopologyEdge& edge = topology_.graph[topology_.edges_by_id[hop.edge_id]];
      slot = zone_->create_link(edge.name + (hop.forward ? "/ab" : "/ba"), edge.usable_Bps())
                 ->set_latency(edge.latency_s)
                 ->seal();
    }
    return slot;
  }

private:
  sg4::NetZone* zone_;
  const TopologyGraph& topology_;
  std::vector<sg4::Link*> links_;
};

} // namespace

SimgridPlatform build_simgrid_platform(const TopologyGraph& topology, const SimgridPlatformSpec& spec)
{
  const std::size_t gpus = topology.gpu_vertices.size();
  if (spec.gpu_speed_flop_per_s.size() != gpus)
    throw std::logic_error("build_simgrid_platform: one speed per GPU expected");
  auto* zone = sg4::create_full_zone("cluster");
  SimgridPlatform platform;
  LinkFactory links(zone, topology);
  // Folded (SymmetryFold.hpp): hosts for the block's GPUs only; every other rank names its
  // representative's host, and the routes are the quotient's.
  const bool folded = spec.fold != nullptr && spec.fold->folded();
  const std::size_t block = folded ? static_cast<std::size_t>(spec.fold->block_ranks) : gpus;
  for (std::size_t rank = 0; rank < gpus; ++rank)
    platform.gpu_hosts.push_back(rank < block ? zone->create_host(topology.graph[topology.gpu_vertices[rank]].name,
                                                                  spec.gpu_speed_flop_per_s[rank])
                                                    ->seal()
                                              : platform.gpu_hosts[rank % block]);
  const auto add_route = [&](int src, int dst, const std::vector<RouteHop>& hops) {
    std::vector<sg4::LinkInRoute> route;
    route.reserve(hops.size());
    for (const RouteHop& hop : hops)
      route.emplace_back(links.link(hop));
    zone->add_route(platform.gpu_hosts[static_cast<std::size_t>(src)]->get_netpoint(),
                    platform.gpu_hosts[static_cast<std::size_t>(dst)]->get_netpoint(), nullptr, nullptr, route, false);
  };
  if (folded) {
    for (const FoldedRoute& route : spec.fold->routes)
      add_route(route.src_rank, route.dst_rank, route.hops);
  } else {
    std::map<int, std::set<int>> destinations; // by source: one graph search per source
    for (const auto& [src, dst] : spec.routes)
      if (src != dst)
        destinations[src].insert(dst);
    for (const auto& [src, dst_set] : destinations) {
      const std::vector<int> dsts(dst_set.begin(), dst_set.end());
      const auto routes = topology.routes_from(src, dsts);
      for (std::size_t i = 0; i < dsts.size(); ++i)
        add_route(src, dsts[i], routes[i]);
    }
  }
  zone->seal();
  return platform;
}

} // namespace gpuscale::engine
