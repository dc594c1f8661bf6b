#include "sim/engine/SymmetryFold.hpp"

#include "sim/engine/StepSetup.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace gpuscale::engine {
namespace {

/// Where a hop's link goes under the shift.
struct EdgeImage {
  std::size_t edge_id = 0;
  bool flipped = false; ///< the image edge's ends are in the other order: directions swap
};

/// Each vertex of a node, by node, in the order the node's vertices were created.
struct NodeVertices {
  std::vector<std::vector<Vertex>> of_node;
  std::vector<std::size_t> position; ///< by vertex: its index in its node's list
};

NodeVertices node_vertices_of(const TopologyGraph& topology)
{
  NodeVertices out;
  out.of_node.resize(topology.nodes.size());
  out.position.assign(boost::num_vertices(topology.graph), 0);
  for (auto [it, end] = boost::vertices(topology.graph); it != end; ++it) {
    const int node = topology.graph[*it].node_index;
    if (node < 0)
      continue;
    auto& list = out.of_node[static_cast<std::size_t>(node)];
    out.position[*it] = list.size();
    list.push_back(*it);
  }
  return out;
}

/// For each communicator rank of a layout, its (group, index) in `groups` (locals or crosses).
std::vector<std::pair<int, int>> positions_in(const std::vector<RingGroup>& groups, int size)
{
  std::vector<std::pair<int, int>> out(static_cast<std::size_t>(size), {-1, -1});
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t i = 0; i < groups[g].members.size(); ++i)
      out[static_cast<std::size_t>(groups[g].members[i])] = {static_cast<int>(g), static_cast<int>(i)};
  return out;
}

/// One attempt: the shift of `block_nodes` nodes, checked, and the quotient's routes.
class ShiftCheck {
public:
  ShiftCheck(const StepSetup& setup, const NodeVertices& nodes, int block_nodes)
      : setup_(setup), topology_(setup.topology), nodes_(nodes), block_nodes_(block_nodes),
        node_count_(static_cast<int>(topology_.nodes.size())), copies_(node_count_ / block_nodes),
        block_ranks_(block_nodes * topology_.nodes.front().gpus)
  {
  }

  /// The fold, or a refusal naming the first check that failed.
  SymmetryFold run()
  {
    // Pipeline sends go between the stages of one replica: a block of whole replicas keeps both
    // ends of every send simulated.
    if (setup_.parallel.pp > 1 && block_ranks_ % setup_.parallel.replica_ranks() != 0)
      return refused_fold("the block would split a pipeline replica");
    if (auto why = map_vertices())
      return refused_fold(*why);
    if (auto why = map_edges())
      return refused_fold(*why);
    if (auto why = check_ranks())
      return refused_fold(*why);
    for (Stream stream : {Stream::Gradients, Stream::Parameters, Stream::TensorParallel, Stream::ContextParallel})
      if (auto why = check_groups(stream))
        return refused_fold(*why);
    SymmetryFold fold;
    if (auto why = fold_routes(fold.routes))
      return refused_fold(*why);
    fold.block_ranks = block_ranks_;
    fold.copies = copies_;
    return fold;
  }

private:
  int shifted(int rank) const { return (rank + block_ranks_) % setup_.gpus(); }

  std::optional<std::string> map_vertices()
  {
    const auto& graph = topology_.graph;
    const std::size_t n = boost::num_vertices(graph);
    image_.assign(n, 0);
    for (auto [it, end] = boost::vertices(graph); it != end; ++it) {
      const Vertex v = *it;
      const int node = graph[v].node_index;
      if (node >= 0) {
        const auto& target = nodes_.of_node[static_cast<std::size_t>((node + block_nodes_) % node_count_)];
        const auto position = nodes_.position[v];
        if (position >= target.size() || graph[target[position]].kind != graph[v].kind)
          return "nodes are not wired alike";
        image_[v] = target[position];
      } else {
        image_[v] = v; // fabric switches stay; leaves are moved below with the nodes under them
      }
    }
    for (auto [it, end] = boost::vertices(graph); it != end; ++it) {
      const Vertex leaf = *it;
      if (graph[leaf].kind != VertexKind::LeafSwitch)
        continue;
      std::optional<Vertex> moved;
      for (auto [e, e_end] = boost::out_edges(leaf, graph); e != e_end; ++e) {
        const Vertex below = boost::target(*e, graph);
        if (graph[below].node_index < 0)
          continue;
        // The leaf above the shifted node's NIC.
        std::optional<Vertex> above;
        for (auto [f, f_end] = boost::out_edges(image_[below], graph); f != f_end; ++f)
          if (graph[boost::target(*f, graph)].kind == VertexKind::LeafSwitch)
            above = boost::target(*f, graph);
        if (!above || (moved && *moved != *above))
          return "the shift splits a leaf's nodes over several leaves";
        moved = above;
      }
      if (moved)
        image_[leaf] = *moved;
    }
    std::vector<bool> hit(n, false);
    for (Vertex image : image_) {
      if (hit[image])
        return "the shift is not one-to-one on the fabric";
      hit[image] = true;
    }
    return std::nullopt;
  }

  std::optional<std::string> map_edges()
  {
    const auto& graph = topology_.graph;
    edge_image_.assign(topology_.edges_by_id.size(), {});
    for (const Edge& e : topology_.edges_by_id) {
      const TopologyEdge& edge = graph[e];
      const Vertex a = image_[edge.end_a];
      const Vertex b = image_[edge.end_b];
      const auto [image, exists] = boost::edge(a, b, graph);
      if (!exists)
        return "link " + edge.name + " has no counterpart under the shift";
      const TopologyEdge& other = graph[image];
      if (other.kind != edge.kind || other.bandwidth_Bps != edge.bandwidth_Bps ||
          other.usable_fraction != edge.usable_fraction || other.latency_s != edge.latency_s)
        return "links " + edge.name + " and " + other.name + " differ";
      edge_image_[edge.id] = {other.id, other.end_a != a};
    }
    // One-to-one on edges too (two links between the same ends would otherwise share an image).
    std::vector<bool> hit(edge_image_.size(), false);
    for (const EdgeImage& image : edge_image_) {
      if (hit[image.edge_id])
        return "the shift is not one-to-one on the links";
      hit[image.edge_id] = true;
    }
    return std::nullopt;
  }

  std::optional<std::string> check_ranks()
  {
    for (int rank = 0; rank < setup_.gpus(); ++rank) {
      const int image = shifted(rank);
      const auto r = static_cast<std::size_t>(rank);
      const auto i = static_cast<std::size_t>(image);
      if (image_[topology_.gpu_vertices[r]] != topology_.gpu_vertices[i])
        return "GPU ranks are not numbered node by node";
      if (setup_.program_of_rank[r] != setup_.program_of_rank[i] ||
          setup_.gpu_speed_flop_per_s[r] != setup_.gpu_speed_flop_per_s[i])
        return "GPUs run different programs or at different speeds";
    }
    return std::nullopt;
  }

  /// Each group onto a group of the same shape, every ring's successor commuting with the shift.
  std::optional<std::string> check_groups(Stream stream)
  {
    const auto s = static_cast<std::size_t>(stream);
    if (std::none_of(setup_.programs.begin(), setup_.programs.end(),
                     [&](const StepProgram& p) { return p.submitted[s] > 0; }))
      return std::nullopt;
    const StreamGroups groups = setup_.groups_of(stream);
    const auto& layouts = *groups.layouts;
    std::vector<std::pair<int, int>> where(static_cast<std::size_t>(setup_.gpus()), {-1, -1}); // (group, member)
    for (std::size_t g = 0; g < layouts.size(); ++g)
      for (int m = 0; m < layouts[g].size(); ++m)
        where[static_cast<std::size_t>(layouts[g].gpu_ranks[static_cast<std::size_t>(m)])] = {static_cast<int>(g), m};
    std::vector<std::vector<std::pair<int, int>>> locals(layouts.size()), crosses(layouts.size());
    for (std::size_t g = 0; g < layouts.size(); ++g) {
      locals[g] = positions_in(layouts[g].locals, layouts[g].size());
      crosses[g] = positions_in(layouts[g].crosses, layouts[g].size());
    }
    const std::string refusal = "the shift does not map the " + std::string(stream_name(stream)) + " groups onto themselves";
    for (int rank = 0; rank < setup_.gpus(); ++rank) {
      const auto [g, m] = where[static_cast<std::size_t>(rank)];
      const auto [h, n] = where[static_cast<std::size_t>(shifted(rank))];
      if ((g < 0) != (h < 0))
        return refusal;
      if (g < 0)
        continue;
      const CommunicatorLayout& a = layouts[static_cast<std::size_t>(g)];
      const CommunicatorLayout& b = layouts[static_cast<std::size_t>(h)];
      if (a.shape() != b.shape())
        return refusal;
      // Inside one node a group may run halving-doubling, whose partners are by member index.
      if (a.locals.size() == 1 && m != n)
        return refusal;
      if (!rings_commute(a, a.whole, m, b, b.whole, n))
        return refusal;
      if (!a.hierarchical)
        continue;
      for (const auto* scope : {&locals, &crosses}) {
        const auto [ga, ia] = (*scope)[static_cast<std::size_t>(g)][static_cast<std::size_t>(m)];
        const auto [gb, ib] = (*scope)[static_cast<std::size_t>(h)][static_cast<std::size_t>(n)];
        if (ga < 0 || gb < 0)
          return refusal;
        const auto& ring_a = (scope == &locals ? a.locals : a.crosses)[static_cast<std::size_t>(ga)];
        const auto& ring_b = (scope == &locals ? b.locals : b.crosses)[static_cast<std::size_t>(gb)];
        if (!rings_commute(a, ring_a, ia, b, ring_b, ib))
          return refusal;
      }
    }
    return std::nullopt;
  }

  static const char* stream_name(Stream stream)
  {
    switch (stream) {
      case Stream::Gradients: return "gradient";
      case Stream::Parameters: return "parameter";
      case Stream::TensorParallel: return "tensor-parallel";
      case Stream::ContextParallel: return "context-parallel";
    }
    return "?";
  }

  /// Member `i` of `ring_a` (in layout `a`) and its image, member `j` of `ring_b` (in `b`): on
  /// every channel, the image of i's successor is j's successor.
  bool rings_commute(const CommunicatorLayout& a, const RingGroup& ring_a, int i, const CommunicatorLayout& b,
                     const RingGroup& ring_b, int j) const
  {
    if (ring_a.size() != ring_b.size() || ring_a.channels.size() != ring_b.channels.size())
      return false;
    const auto gpu = [](const CommunicatorLayout& layout, const RingGroup& ring, int member) {
      return layout.gpu_ranks[static_cast<std::size_t>(ring.members[static_cast<std::size_t>(member)])];
    };
    for (std::size_t c = 0; c < ring_a.channels.size(); ++c) {
      const int next_a = ring_a.channels[c][static_cast<std::size_t>(i)];
      const int next_b = ring_b.channels[c][static_cast<std::size_t>(j)];
      if (shifted(gpu(a, ring_a, next_a)) != gpu(b, ring_b, next_b))
        return false;
    }
    return true;
  }

  RouteHop image_of(const RouteHop& hop) const
  {
    const EdgeImage& image = edge_image_[hop.edge_id];
    return {image.edge_id, hop.forward != image.flipped};
  }

  /// The orbit's representative link (lowest edge id, then forward first); nullopt when the shift
  /// leaves some power of it in place (the orbit is shorter than the number of copies).
  std::optional<RouteHop> representative_of(const RouteHop& hop) const
  {
    RouteHop best = hop;
    RouteHop h = hop;
    for (int j = 1; j <= copies_; ++j) {
      h = image_of(h);
      const bool back = h == hop;
      if (back != (j == copies_))
        return std::nullopt;
      if (std::tie(h.edge_id, h.forward) < std::tie(best.edge_id, best.forward))
        best = h;
    }
    return best;
  }

  std::optional<std::string> fold_routes(std::vector<FoldedRoute>& out)
  {
    std::map<int, std::vector<int>> destinations; // by simulated source
    for (const auto& [src, dst] : setup_.routes)
      if (src < block_ranks_ && src != dst)
        destinations[src].push_back(dst);
    std::map<std::pair<int, int>, std::vector<RouteHop>> folded;
    for (auto& [src, dsts] : destinations) {
      std::sort(dsts.begin(), dsts.end());
      dsts.erase(std::unique(dsts.begin(), dsts.end()), dsts.end());
      if (!topology_.shortest_routes_unique(src, dsts))
        return "a route was chosen among equally short ones";
      const auto routes = topology_.routes_from(src, dsts);
      for (std::size_t d = 0; d < dsts.size(); ++d) {
        const int dst = dsts[d] % block_ranks_;
        if (dst == src)
          return "a folded route would return to its own GPU";
        std::vector<RouteHop> hops;
        for (const RouteHop& hop : routes[d]) {
          const auto rep = representative_of(hop);
          if (!rep)
            return "the shift leaves a crossed link in place";
          if (std::find(hops.begin(), hops.end(), *rep) != hops.end())
            return "a route crosses two links of one orbit";
          hops.push_back(*rep);
        }
        const auto [it, inserted] = folded.try_emplace({src, dst}, hops);
        if (!inserted && it->second != hops)
          return "two routes fold onto one pair of GPUs";
      }
    }
    for (auto& [pair, hops] : folded)
      out.push_back({pair.first, pair.second, std::move(hops)});
    return std::nullopt;
  }

  const StepSetup& setup_;
  const TopologyGraph& topology_;
  const NodeVertices& nodes_;
  int block_nodes_;
  int node_count_;
  int copies_;
  int block_ranks_;
  std::vector<Vertex> image_;
  std::vector<EdgeImage> edge_image_;
};

} // namespace

std::string SymmetryFold::describe() const
{
  if (!folded())
    return "not folded: " + refusal;
  return "folded: " + std::to_string(copies) + " copies of " + std::to_string(block_ranks) + " GPUs";
}

SymmetryFold refused_fold(std::string reason)
{
  SymmetryFold fold;
  fold.refusal = std::move(reason);
  return fold;
}

SymmetryFold find_symmetry_fold(const StepSetup& setup)
{
  if (!setup.scenario->fold_symmetric_ranks)
    return refused_fold("symmetry: simulate");
  const TopologyGraph& topology = setup.topology;
  const int node_count = static_cast<int>(topology.nodes.size());
  if (node_count < 2)
    return refused_fold("one node");
  for (const NodeWiring& node : topology.nodes)
    if (node.gpus != node.gpus_per_node || node.gpus != topology.nodes.front().gpus)
      return refused_fold("partial or unequal nodes");
  // With cross-traffic each flow also loads the reverse route, which SimGrid looks up from its
  // destination back to its source: the quotient holds the block's forward routes only.
  if (setup.scenario->simgrid.crosstraffic)
    return refused_fold("SimGrid cross-traffic");
  if (setup.halving_doubling_across_nodes)
    return refused_fold("a collective runs halving-doubling across nodes");
  const NodeVertices nodes = node_vertices_of(topology);
  std::string last = "no shift of whole nodes maps the step onto itself";
  for (int block_nodes = 1; 2 * block_nodes <= node_count; ++block_nodes) {
    if (node_count % block_nodes != 0)
      continue;
    SymmetryFold fold = ShiftCheck(setup, nodes, block_nodes).run();
    if (fold.folded())
      return fold;
    last = fold.refusal + " (shift of " + std::to_string(block_nodes) + " node(s))";
  }
  return refused_fold(last);
}

} // namespace gpuscale::engine
