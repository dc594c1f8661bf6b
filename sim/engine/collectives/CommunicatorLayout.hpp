#pragma once
/// Which GPUs form a communicator and how they split by node, before any SimGrid object exists:
/// the platform needs the routes the collectives will use before it is sealed.
///
///   node 0: c0 c1 c2 c3     locals  = {c0 c1 c2 c3}, {c4 c5 c6 c7}          (intra-node rings)
///   node 1: c4 c5 c6 c7     crosses = {c0 c4}, {c1 c5}, {c2 c6}, {c3 c7}    (one ring per rail)

#include <utility>
#include <vector>

namespace gpuscale::engine {

/// What choosing and planning a collective needs to know of its communicator: shared by the SimGrid
/// communicator and the analytical executor, which has no SimGrid objects.
struct CommunicatorShape {
  int size = 0;
  bool hierarchical = false; ///< see CommunicatorLayout
  int per_node = 1;          ///< ranks on each node (meaningful when hierarchical)
  bool in_switch_reduction = false;
  bool in_network_reduction = false;
};

struct CommunicatorLayout {
  std::vector<int> gpu_ranks;             ///< global GPU rank of each communicator rank
  std::vector<std::vector<int>> locals;   ///< communicator ranks sharing a node, in order
  std::vector<std::vector<int>> crosses;  ///< communicator ranks with the same position in their node
  /// True when the members span several nodes with the same number (> 1) on each: hierarchical
  /// algorithms apply.
  bool hierarchical = false;
  /// All members share one node whose switch reduces (NVLS): `auto` all-reduces in the switch.
  bool in_switch_reduction = false;
  /// The members span nodes on a fabric whose switches reduce (SHARP): `auto` runs the cross-node
  /// phase of a hierarchical all-reduce in the network.
  bool in_network_reduction = false;

  int size() const { return static_cast<int>(gpu_ranks.size()); }
  CommunicatorShape shape() const;

  /// Ordered GPU-rank pairs the collectives send on: ring successors, intra-node and cross-node ring
  /// successors, and (when `halving_doubling` and the size is a power of two) all butterfly partners.
  std::vector<std::pair<int, int>> route_pairs(bool halving_doubling) const;
};

/// `node_of_gpu` maps every global GPU rank to its node index.
CommunicatorLayout make_communicator_layout(std::vector<int> gpu_ranks, const std::vector<int>& node_of_gpu);

/// Sets the layout's in_switch_reduction / in_network_reduction from what its nodes' switches
/// (`node_in_switch_reduction`, by node index) and the fabric can reduce.
void mark_reduction_hardware(CommunicatorLayout& layout, const std::vector<int>& node_of_gpu,
                             const std::vector<bool>& node_in_switch_reduction, bool fabric_in_network_reduction);

bool is_power_of_two(int value);

} // namespace gpuscale::engine
