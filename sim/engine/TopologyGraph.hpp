#pragma once
/// The cluster as a graph: GPUs, intra-node switches, NICs and network switches are vertices; every
/// physical link is an undirected edge carrying its per-direction bandwidth and latency. The SimGrid
/// platform and the XML export are both built from this one graph.
///
///   node k:  GPU0 ─┐            ┌─ NIC0 ── leaf/rail switch ── core/spine
///            GPU1 ─┼─ NVSwitch   ├─ NIC1 ── ...
///            ...   ┘  (or mesh,  (GPU i ── PCIe ── NIC i mod nics)
///                     or PCIe switch)

#include "sim/model/LinkFractions.hpp"
#include "sim/model/Platform.hpp"

#include <boost/graph/adjacency_list.hpp>

#include <string>
#include <vector>

namespace gpuscale::engine {

enum class VertexKind { Gpu, NvSwitch, PcieSwitch, Nic, LeafSwitch, CoreSwitch, RailSwitch, SingleSwitch };

struct TopologyVertex {
  std::string name;
  VertexKind kind = VertexKind::Gpu;
  int gpu_rank = -1;  ///< global GPU index (node-group order), GPUs only
  int node_index = -1;
};

enum class LinkKind { IntraNode, Pcie, Network };

struct TopologyEdge {
  std::string name;
  LinkKind kind = LinkKind::Network;
  double bandwidth_Bps = 0; ///< line rate (datasheet), per direction
  model::LinkClass link_class = model::LinkClass::Nic;
  std::string generation;     ///< accelerator generation of the node an intra-node link belongs to; "" otherwise
  double usable_fraction = 1; ///< of the line rate, by class and generation (apply_link_fractions)
  double latency_s = 0;
  std::size_t id = 0;  ///< dense edge index, 0..num_edges-1
  std::size_t end_a = 0; ///< the endpoints in the order the edge was created: "forward" is a -> b
  std::size_t end_b = 0;

  /// What the link delivers per direction: the rate SimGrid gives it.
  double usable_Bps() const { return bandwidth_Bps * usable_fraction; }
};

using TopologyGraphType =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, TopologyVertex, TopologyEdge>;
using Vertex = TopologyGraphType::vertex_descriptor;
using Edge = TopologyGraphType::edge_descriptor;

/// One hop of a route: the edge and the direction it is crossed in.
struct RouteHop {
  std::size_t edge_id = 0;
  bool forward = true; ///< true when crossed from end_a to end_b

  bool operator==(const RouteHop&) const = default;
};

/// What the collectives need to know of a node's wiring (line rates; fractions apply on top).
struct NodeWiring {
  model::IntraNodeFabric fabric = model::IntraNodeFabric::NvSwitch;
  std::string generation;     ///< of its GPUs
  int gpus = 0;               ///< GPUs of the node the run uses
  int gpus_per_node = 0;      ///< GPUs the node has
  int nics = 0;
  double intra_Bps = 0;       ///< per GPU, all scale-up links together
  double nic_Bps = 0;         ///< per NIC
  double pcie_Bps = 0;        ///< GPU <-> NIC
};

struct TopologyGraph {
  TopologyGraphType graph;
  std::vector<NodeWiring> nodes;    ///< by node index
  std::vector<Vertex> gpu_vertices; ///< indexed by global GPU rank
  std::vector<int> gpu_node;        ///< node index of each GPU rank
  std::vector<std::string> gpu_type; ///< accelerator name of each GPU rank
  std::vector<bool> node_in_switch_reduction; ///< by node index: its switch reduces (NVLS)
  bool fabric_in_network_reduction = false;   ///< the inter-node switches reduce (SHARP)
  std::vector<Edge> edges_by_id;     ///< edge descriptor of each edge id

  /// Shortest route (fewest links) from GPU `src_rank` to GPU `dst_rank` that never transits
  /// through another GPU. Ties go to the lowest-numbered vertex, so routes are deterministic.
  std::vector<RouteHop> route(int src_rank, int dst_rank) const;
  /// The routes from `src_rank` to each of `dst_ranks`, from one breadth-first search.
  std::vector<std::vector<RouteHop>> routes_from(int src_rank, const std::vector<int>& dst_ranks) const;
  /// Whether each route routes_from gives from `src_rank` to `dst_ranks` is the only shortest one
  /// (same rule: never through another GPU), so that no tie-break chose it: a graph automorphism
  /// then maps it onto the route between the images (SymmetryFold.hpp).
  bool shortest_routes_unique(int src_rank, const std::vector<int>& dst_ranks) const;
};

/// Builds the graph of the first `gpus` GPUs (all if `gpus` <= 0) and of the nodes that hold them.
/// Nodes and GPUs beyond those are left out, so a 2-GPU run on a 1000-node cluster stays small; the
/// network switches the used nodes need are all present, so contention inside them is simulated.
/// Edges carry their line rate and a usable fraction of 1 until apply_link_fractions.
TopologyGraph build_topology(const model::Platform& platform, int gpus);

/// Sets every edge's usable fraction from its class and generation.
void apply_link_fractions(TopologyGraph& topology, const model::LinkFractions& links);

} // namespace gpuscale::engine
