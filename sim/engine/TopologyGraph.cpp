#include "sim/engine/TopologyGraph.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <stdexcept>

namespace gpuscale::engine {
namespace {

using model::FabricTopology;
using model::IntraNodeFabric;

class TopologyBuilder {
public:
  TopologyBuilder(const model::Platform& platform, TopologyGraph& out) : platform_(platform), out_(out) {}

  void build(int gpus)
  {
    const int wanted = gpus > 0 ? gpus : platform_.gpu_count();
    int node = 0;
    for (std::size_t g = 0; g < platform_.node_groups.size() && rank_ < wanted; ++g) {
      const auto& type = platform_.node_type_of_group(g);
      for (int i = 0; i < platform_.node_groups[g].count && rank_ < wanted; ++i)
        add_node(type, node++, wanted);
    }
    out_.fabric_in_network_reduction = platform_.fabric.in_network_reduction;
    connect_nodes();
  }

private:
  struct NodeNics {
    const model::NodeType* type;
    std::vector<Vertex> nics;
  };

  Vertex add_vertex(std::string name, VertexKind kind, int node = -1, int gpu_rank = -1)
  {
    return boost::add_vertex(TopologyVertex{std::move(name), kind, gpu_rank, node}, out_.graph);
  }

  void add_edge(Vertex a, Vertex b, LinkKind kind, double bandwidth_Bps, double latency_s,
                model::LinkClass link_class = model::LinkClass::Nic, std::string generation = "")
  {
    TopologyEdge edge;
    edge.name = out_.graph[a].name + "--" + out_.graph[b].name;
    edge.kind = kind;
    edge.bandwidth_Bps = bandwidth_Bps;
    edge.link_class = link_class;
    edge.generation = std::move(generation);
    edge.latency_s = latency_s;
    edge.id = boost::num_edges(out_.graph);
    edge.end_a = a;
    edge.end_b = b;
    out_.edges_by_id.push_back(boost::add_edge(a, b, std::move(edge), out_.graph).first);
  }

  /// Adds a node with its GPUs up to global rank `wanted`: a run smaller than a node uses part of it.
  void add_node(const model::NodeType& type, int node, int wanted)
  {
    const std::string prefix = "n" + std::to_string(node);
    out_.node_in_switch_reduction.push_back(type.in_switch_reduction);
    std::vector<Vertex> gpus;
    for (int local = 0; local < type.gpus_per_node && rank_ < wanted; ++local) {
      gpus.push_back(add_vertex(prefix + "-gpu" + std::to_string(local), VertexKind::Gpu, node, rank_));
      out_.gpu_vertices.push_back(gpus.back());
      out_.gpu_node.push_back(node);
      out_.gpu_type.push_back(type.gpu_type);
      ++rank_;
    }
    const std::string& generation = platform_.gpu_type_of(type).generation;
    out_.nodes.push_back({type.fabric, generation, static_cast<int>(gpus.size()), type.gpus_per_node, type.nic_count,
                          type.intra_bw_Bps, type.nic_bw_Bps, type.pcie_bw_Bps});
    std::vector<Vertex> nics;
    for (int k = 0; k < type.nic_count; ++k)
      nics.push_back(add_vertex(prefix + "-nic" + std::to_string(k), VertexKind::Nic, node));

    switch (type.fabric) {
      case IntraNodeFabric::NvSwitch: {
        const Vertex nvswitch = add_vertex(prefix + "-nvswitch", VertexKind::NvSwitch, node);
        for (Vertex gpu : gpus)
          add_edge(gpu, nvswitch, LinkKind::IntraNode, type.intra_bw_Bps, type.intra_latency_s,
                   model::LinkClass::NvSwitch, generation);
        attach_nics_to_gpus(type, gpus, nics);
        break;
      }
      case IntraNodeFabric::NvlinkMesh: {
        // Full mesh; each GPU's aggregate scale-up bandwidth is split evenly over its peers.
        const double per_pair = gpus.size() > 1 ? type.intra_bw_Bps / static_cast<double>(gpus.size() - 1) : 0.0;
        for (std::size_t a = 0; a < gpus.size(); ++a)
          for (std::size_t b = a + 1; b < gpus.size(); ++b)
            add_edge(gpus[a], gpus[b], LinkKind::IntraNode, per_pair, type.intra_latency_s,
                     model::LinkClass::NvlinkMesh, generation);
        attach_nics_to_gpus(type, gpus, nics);
        break;
      }
      case IntraNodeFabric::Pcie: {
        const Vertex pcie = add_vertex(prefix + "-pcie", VertexKind::PcieSwitch, node);
        for (Vertex gpu : gpus)
          add_edge(gpu, pcie, LinkKind::IntraNode, type.intra_bw_Bps, type.intra_latency_s, model::LinkClass::Pcie,
                   generation);
        for (Vertex nic : nics)
          add_edge(nic, pcie, LinkKind::Pcie, type.pcie_bw_Bps, type.pcie_latency_s);
        break;
      }
    }
    nodes_.push_back({&type, nics});
  }

  void attach_nics_to_gpus(const model::NodeType& type, const std::vector<Vertex>& gpus, const std::vector<Vertex>& nics)
  {
    if (nics.empty())
      return;
    for (std::size_t i = 0; i < gpus.size(); ++i)
      add_edge(gpus[i], nics[i % nics.size()], LinkKind::Pcie, type.pcie_bw_Bps, type.pcie_latency_s);
  }

  /// Every switch on a route adds one switch_latency: each edge carries half of it per switch
  /// endpoint (NIC-switch: nic latency + half; switch-switch: a whole one).
  void connect_nodes()
  {
    const auto& fabric = platform_.fabric;
    switch (fabric.topology) {
      case FabricTopology::SingleSwitch: {
        const Vertex sw = add_vertex("switch", VertexKind::SingleSwitch);
        for (const auto& node : nodes_)
          for (Vertex nic : node.nics)
            add_edge(nic, sw, LinkKind::Network, node.type->nic_bw_Bps, node.type->nic_latency_s + 0.5 * fabric.switch_latency_s);
        break;
      }
      case FabricTopology::FatTree: {
        // Two levels; the spine layer is aggregated into one core switch whose link to each leaf
        // carries the leaf's downlink capacity divided by the oversubscription (perfect ECMP).
        const std::size_t per_leaf = static_cast<std::size_t>(std::max(1, fabric.nodes_per_leaf));
        const std::size_t leaves = (nodes_.size() + per_leaf - 1) / per_leaf;
        const Vertex core = leaves > 1 ? add_vertex("core", VertexKind::CoreSwitch) : Vertex{};
        for (std::size_t leaf = 0; leaf < leaves; ++leaf) {
          const Vertex leaf_vertex = add_vertex("leaf" + std::to_string(leaf), VertexKind::LeafSwitch);
          double downlink_Bps = 0;
          for (std::size_t n = leaf * per_leaf; n < std::min(nodes_.size(), (leaf + 1) * per_leaf); ++n)
            for (Vertex nic : nodes_[n].nics) {
              add_edge(nic, leaf_vertex, LinkKind::Network, nodes_[n].type->nic_bw_Bps,
                       nodes_[n].type->nic_latency_s + 0.5 * fabric.switch_latency_s);
              downlink_Bps += nodes_[n].type->nic_bw_Bps;
            }
          // Uplink sized for a full leaf: a partly filled last leaf keeps the same switch.
          const double full_leaf_Bps = downlink_Bps * static_cast<double>(per_leaf) /
                                       static_cast<double>(std::min(per_leaf, nodes_.size() - leaf * per_leaf));
          if (leaves > 1)
            add_edge(leaf_vertex, core, LinkKind::Network, full_leaf_Bps / fabric.oversubscription,
                     fabric.switch_latency_s);
        }
        break;
      }
      case FabricTopology::RailOptimized: {
        std::size_t rails = 0;
        for (const auto& node : nodes_)
          rails = std::max(rails, node.nics.size());
        std::vector<Vertex> rail_switches;
        std::vector<double> rail_Bps(rails, 0.0);
        for (std::size_t r = 0; r < rails; ++r)
          rail_switches.push_back(add_vertex("rail" + std::to_string(r), VertexKind::RailSwitch));
        for (const auto& node : nodes_)
          for (std::size_t r = 0; r < node.nics.size(); ++r) {
            add_edge(node.nics[r], rail_switches[r], LinkKind::Network, node.type->nic_bw_Bps,
                     node.type->nic_latency_s + 0.5 * fabric.switch_latency_s);
            rail_Bps[r] += node.type->nic_bw_Bps;
          }
        if (rails > 1) {
          const Vertex spine = add_vertex("spine", VertexKind::CoreSwitch);
          for (std::size_t r = 0; r < rails; ++r)
            add_edge(rail_switches[r], spine, LinkKind::Network, fabric.spine_bw_Bps.value_or(rail_Bps[r]),
                     fabric.switch_latency_s);
        }
        break;
      }
    }
  }

  const model::Platform& platform_;
  TopologyGraph& out_;
  std::vector<NodeNics> nodes_;
  int rank_ = 0;
};

} // namespace

std::vector<RouteHop> TopologyGraph::route(int src_rank, int dst_rank) const
{
  return routes_from(src_rank, {dst_rank}).front();
}

std::vector<std::vector<RouteHop>> TopologyGraph::routes_from(int src_rank, const std::vector<int>& dst_ranks) const
{
  const Vertex src = gpu_vertices.at(static_cast<std::size_t>(src_rank));
  const std::size_t n = boost::num_vertices(graph);
  // One search per source over a graph of thousands of vertices: the scratch arrays are kept
  // between calls and a vertex counts as reached only when stamped by this call, so a search
  // costs what it visits, not the size of the graph.
  struct Scratch {
    std::vector<std::uint32_t> reached_by; ///< the call that reached the vertex
    std::vector<Vertex> parent;
    std::vector<Edge> parent_edge;
    std::vector<std::uint32_t> wanted_by;  ///< the call that wants a route to the vertex
    std::uint32_t call = 0;
  };
  thread_local Scratch scratch;
  if (scratch.reached_by.size() < n || scratch.call == std::numeric_limits<std::uint32_t>::max()) {
    scratch.reached_by.assign(n, 0);
    scratch.wanted_by.assign(n, 0);
    scratch.parent.resize(n);
    scratch.parent_edge.resize(n);
    scratch.call = 0;
  }
  const std::uint32_t call = ++scratch.call;
  auto& reached_by = scratch.reached_by;
  auto& parent = scratch.parent;
  auto& parent_edge = scratch.parent_edge;
  // The search stops once every destination is reached: a vertex's parent is fixed when it is
  // first reached, so the routes are those of the full search.
  std::size_t missing = 0;
  for (int dst_rank : dst_ranks) {
    const Vertex dst = gpu_vertices.at(static_cast<std::size_t>(dst_rank));
    if (dst != src && scratch.wanted_by[dst] != call) {
      scratch.wanted_by[dst] = call;
      ++missing;
    }
  }
  std::deque<Vertex> queue{src};
  parent[src] = src;
  reached_by[src] = call;
  while (!queue.empty() && missing > 0) {
    const Vertex u = queue.front();
    queue.pop_front();
    // GPUs are endpoints only: traffic is never forwarded through another GPU.
    if (u != src && graph[u].kind == VertexKind::Gpu)
      continue;
    for (auto [it, end] = boost::out_edges(u, graph); it != end; ++it) {
      const Vertex v = boost::target(*it, graph);
      if (reached_by[v] == call)
        continue;
      reached_by[v] = call;
      parent[v] = u;
      parent_edge[v] = *it;
      queue.push_back(v);
      if (scratch.wanted_by[v] == call)
        --missing;
    }
  }
  std::vector<std::vector<RouteHop>> routes;
  for (int dst_rank : dst_ranks) {
    const Vertex dst = gpu_vertices.at(static_cast<std::size_t>(dst_rank));
    if (reached_by[dst] != call)
      throw std::runtime_error("no route from " + graph[src].name + " to " + graph[dst].name);
    std::vector<RouteHop> hops;
    for (Vertex v = dst; v != src; v = parent[v]) {
      const Edge e = parent_edge[v];
      hops.push_back({graph[e].id, graph[e].end_a == parent[v]});
    }
    std::reverse(hops.begin(), hops.end());
    routes.push_back(std::move(hops));
  }
  return routes;
}

bool TopologyGraph::shortest_routes_unique(int src_rank, const std::vector<int>& dst_ranks) const
{
  // Breadth-first search counting shortest routes (saturated at 2), up to the farthest destination's
  // distance; a vertex's count is final once every vertex one hop closer has been expanded.
  const Vertex src = gpu_vertices.at(static_cast<std::size_t>(src_rank));
  const std::size_t n = boost::num_vertices(graph);
  constexpr int kUnreached = -1;
  std::vector<int> distance(n, kUnreached);
  std::vector<int> routes(n, 0);
  std::size_t missing = 0;
  std::vector<bool> wanted(n, false);
  for (int dst_rank : dst_ranks) {
    const Vertex dst = gpu_vertices.at(static_cast<std::size_t>(dst_rank));
    if (dst != src && !wanted[dst]) {
      wanted[dst] = true;
      ++missing;
    }
  }
  int farthest = std::numeric_limits<int>::max();
  std::deque<Vertex> queue{src};
  distance[src] = 0;
  routes[src] = 1;
  while (!queue.empty()) {
    const Vertex u = queue.front();
    queue.pop_front();
    if (distance[u] >= farthest)
      break;
    if (u != src && graph[u].kind == VertexKind::Gpu)
      continue;
    for (auto [it, end] = boost::out_edges(u, graph); it != end; ++it) {
      const Vertex v = boost::target(*it, graph);
      if (distance[v] == kUnreached) {
        distance[v] = distance[u] + 1;
        queue.push_back(v);
        if (wanted[v] && --missing == 0)
          farthest = distance[v];
      }
      if (distance[v] == distance[u] + 1)
        routes[v] = std::min(2, routes[v] + routes[u]);
    }
  }
  if (missing > 0)
    return false;
  for (int dst_rank : dst_ranks) {
    const Vertex dst = gpu_vertices.at(static_cast<std::size_t>(dst_rank));
    if (dst != src && routes[dst] != 1)
      return false;
  }
  return true;
}

TopologyGraph build_topology(const model::Platform& platform, int gpus)
{
  TopologyGraph topology;
  TopologyBuilder(platform, topology).build(gpus);
  return topology;
}

void apply_link_fractions(TopologyGraph& topology, const model::LinkFractions& links)
{
  for (const Edge& e : topology.edges_by_id) {
    TopologyEdge& edge = topology.graph[e];
    edge.usable_fraction = links.of(edge.link_class, edge.generation);
  }
}

} // namespace gpuscale::engine
