#include "sim/engine/collectives/CommunicatorLayout.hpp"

#include <algorithm>
#include <map>

namespace gpuscale::engine {
namespace {

RingChannel rotation(int q, int offset)
{
  RingChannel next(static_cast<std::size_t>(q));
  for (int i = 0; i < q; ++i)
    next[static_cast<std::size_t>(i)] = (i + offset) % q;
  return next;
}

/// The ring that visits `order` (indices into the group's members) in turn.
RingChannel ring_through(const std::vector<int>& order)
{
  RingChannel next(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    next[static_cast<std::size_t>(order[i])] = order[(i + 1) % order.size()];
  return next;
}

/// The channels of members that share one node: q - 1 rotations on a mesh, else one ring.
RingGroup node_group(std::vector<int> members, model::IntraNodeFabric fabric)
{
  RingGroup group;
  group.members = std::move(members);
  const int q = group.size();
  if (fabric == model::IntraNodeFabric::NvlinkMesh && q > 2)
    for (int offset = 1; offset < q; ++offset)
      group.channels.push_back(rotation(q, offset));
  else
    group.channels.push_back(rotation(q, 1));
  return group;
}

/// One flat ring per rail across `nodes` nodes of `g` members each (members numbered node-major):
/// channel c leaves every node from position c and enters the next on the same rail. Even nodes
/// are visited c+1, c+2, ..., c and odd ones c, c-1, ..., c+1, so both node-to-node hops of a pair
/// stay on one rail (only the closing hop of an odd node count changes rail).
std::vector<RingChannel> rail_channels(int nodes, int g, int rails)
{
  std::vector<RingChannel> channels;
  for (int c = 0; c < rails; ++c) {
    std::vector<int> order;
    for (int k = 0; k < nodes; ++k)
      for (int step = 0; step < g; ++step) {
        const int position = k % 2 == 0 ? (c + 1 + step) % g : ((c - step) % g + g) % g;
        order.push_back(k * g + position);
      }
    channels.push_back(ring_through(order));
  }
  return channels;
}

CollectiveCosts costs_of(const NodeWiring& node, const model::LinkFractions& links)
{
  CollectiveCosts costs;
  costs.fixed_s = links.collective_fixed_s;
  costs.simple_step_s = links.simple_step_s;
  const double scale_up = links.of(model::scale_up_link_class(node.fabric), node.generation);
  costs.nvls_wire_factor = std::max(1.0, links.of(model::LinkClass::NvSwitch, node.generation) / links.nvls(node.generation));
  costs.local_rate_Bps = node.intra_Bps * scale_up;
  const double nic = links.of(model::LinkClass::Nic, "");
  const int sharing = std::max(1, node.gpus);
  costs.cross_rate_Bps = node.nics > 0 ? std::min(node.pcie_Bps, node.nics * node.nic_Bps / sharing) * nic : 0.0;
  return costs;
}

} // namespace

bool is_power_of_two(int value)
{
  return value > 0 && (value & (value - 1)) == 0;
}

CommunicatorLayout make_communicator_layout(std::vector<int> gpu_ranks, const TopologyGraph& topology,
                                            const model::LinkFractions& links)
{
  CommunicatorLayout layout;
  layout.gpu_ranks = std::move(gpu_ranks);
  if (layout.gpu_ranks.empty())
    return layout;
  const auto node_of = [&](int rank) {
    return topology.gpu_node.at(static_cast<std::size_t>(layout.gpu_ranks[static_cast<std::size_t>(rank)]));
  };
  std::map<int, std::vector<int>> by_node;
  std::vector<int> node_order;
  for (int rank = 0; rank < layout.size(); ++rank) {
    const int node = node_of(rank);
    if (!by_node.contains(node))
      node_order.push_back(node);
    by_node[node].push_back(rank);
  }
  const NodeWiring& first = topology.nodes.at(static_cast<std::size_t>(node_order.front()));
  for (int node : node_order)
    layout.locals.push_back(node_group(by_node[node], topology.nodes.at(static_cast<std::size_t>(node)).fabric));
  const std::size_t per_node = layout.locals.front().members.size();
  bool uniform = true;
  for (const auto& local : layout.locals)
    uniform = uniform && local.members.size() == per_node;
  layout.hierarchical = uniform && layout.locals.size() > 1 && per_node > 1;
  if (uniform) {
    layout.crosses.assign(per_node, {});
    for (const auto& local : layout.locals)
      for (std::size_t i = 0; i < per_node; ++i)
        layout.crosses[i].members.push_back(local.members[i]);
    for (auto& cross : layout.crosses)
      cross.channels.push_back(rotation(cross.size(), 1));
  }

  // The flat ring: one node's channels, one channel per rail across nodes of equal membership
  // (members renumbered node-major so that rail_channels sees positions), else one ring in rank order.
  layout.whole.members.resize(static_cast<std::size_t>(layout.size()));
  for (int rank = 0; rank < layout.size(); ++rank)
    layout.whole.members[static_cast<std::size_t>(rank)] = rank;
  if (layout.locals.size() == 1) {
    layout.whole.channels = layout.locals.front().channels;
  } else if (uniform) {
    const int g = static_cast<int>(per_node);
    const int rails = std::clamp(first.nics, 1, g);
    std::vector<int> node_major;
    for (const auto& local : layout.locals)
      node_major.insert(node_major.end(), local.members.begin(), local.members.end());
    for (const RingChannel& channel : rail_channels(static_cast<int>(layout.locals.size()), g, rails)) {
      RingChannel next(channel.size());
      for (std::size_t i = 0; i < channel.size(); ++i)
        next[static_cast<std::size_t>(node_major[i])] = node_major[static_cast<std::size_t>(channel[i])];
      layout.whole.channels.push_back(std::move(next));
    }
  } else {
    layout.whole.channels.push_back(rotation(layout.size(), 1));
  }

  layout.costs = costs_of(first, links);
  // One representative route of each kind for the estimates (the topology's own latencies).
  const auto route_latency_s = [&](int a, int b) {
    double latency_s = 0;
    for (const RouteHop& hop : topology.route(layout.gpu_ranks[static_cast<std::size_t>(a)],
                                              layout.gpu_ranks[static_cast<std::size_t>(b)]))
      latency_s += topology.graph[topology.edges_by_id[hop.edge_id]].latency_s;
    return latency_s;
  };
  const auto& local0 = layout.locals.front().members;
  if (local0.size() > 1)
    layout.costs.local_latency_s = route_latency_s(local0[0], local0[1]);
  if (layout.locals.size() > 1)
    layout.costs.cross_latency_s = route_latency_s(local0[0], layout.locals[1].members[0]);
  layout.in_switch_reduction =
      layout.locals.size() == 1 && topology.node_in_switch_reduction.at(static_cast<std::size_t>(node_order.front()));
  layout.in_network_reduction = layout.locals.size() > 1 && topology.fabric_in_network_reduction;
  return layout;
}

CommunicatorShape CommunicatorLayout::shape() const
{
  return {size(),
          hierarchical,
          locals.empty() ? 1 : locals.front().size(),
          std::max<int>(1, static_cast<int>(locals.size())),
          in_switch_reduction,
          in_network_reduction,
          costs};
}

std::vector<std::pair<int, int>> CommunicatorLayout::route_pairs(bool halving_doubling) const
{
  std::vector<std::pair<int, int>> pairs;
  const auto gpu = [&](int rank) { return gpu_ranks[static_cast<std::size_t>(rank)]; };
  auto add_group = [&](const RingGroup& group) {
    if (group.size() < 2)
      return;
    for (const RingChannel& channel : group.channels)
      for (std::size_t i = 0; i < channel.size(); ++i)
        pairs.emplace_back(gpu(group.members[i]), gpu(group.members[static_cast<std::size_t>(channel[i])]));
  };
  add_group(whole);
  if (hierarchical) {
    for (const auto& local : locals)
      add_group(local);
    for (const auto& cross : crosses)
      add_group(cross);
  }
  if (halving_doubling && is_power_of_two(size()))
    for (int rank = 0; rank < size(); ++rank)
      for (int distance = 1; distance < size(); distance <<= 1)
        pairs.emplace_back(gpu(rank), gpu(rank ^ distance));
  return pairs;
}

} // namespace gpuscale::engine
