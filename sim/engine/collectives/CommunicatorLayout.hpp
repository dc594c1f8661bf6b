#pragma once
/// Which GPUs form a communicator, how they split by node, and the channels NCCL runs them on,
/// before any SimGrid object exists: the platform needs the routes the collectives will use before
/// it is sealed.
///
///   node 0: c0 c1 c2 c3     locals  = {c0 c1 c2 c3}, {c4 c5 c6 c7}          (intra-node rings)
///   node 1: c4 c5 c6 c7     crosses = {c0 c4}, {c1 c5}, {c2 c6}, {c3 c7}    (one ring per rail)
///
/// Channels (NCCL splits every collective over several rings at once, each with an equal share):
/// - across nodes, a flat ring runs one channel per NIC rail: channel c leaves each node from the GPU
///   of NIC c and enters the next node on the same rail, so the ring is bounded by the NICs together,
///   not by one NIC (NCCL's rings, shared/references/COLLECTIVES.md);
/// - inside a full NVLink / xGMI mesh, q - 1 channels, channel c sending to the member c places
///   ahead: together they load every link of the mesh equally, as the rings NCCL/RCCL lay over all
///   links do (one ring would use 1/(q-1) of each GPU's links);
/// - behind one switch (NVSwitch, PCIe) one channel: more rings share the same GPU ports.

#include "sim/engine/TopologyGraph.hpp"
#include "sim/model/LinkFractions.hpp"

#include <utility>
#include <vector>

namespace gpuscale::engine {

/// One channel of a ring: the member each member sends to (indices into the group's members).
using RingChannel = std::vector<int>;

/// Members that run a ring together and the channels they run at once (at least one).
struct RingGroup {
  std::vector<int> members; ///< communicator ranks
  std::vector<RingChannel> channels;

  int size() const { return static_cast<int>(members.size()); }
};

/// What every collective of a communicator pays besides its bytes, and the uncontended rates its
/// protocol choice and pipeline estimate from (LinkFractions, docs/COLLECTIVES.md).
struct CollectiveCosts {
  double fixed_s = 0;          ///< per collective and rank
  double simple_step_s = 0;    ///< per ring step under the Simple protocol
  double nvls_wire_factor = 1; ///< NVSwitch fraction / NVLS fraction: NVLS bytes go at the NVLS fraction
  double local_rate_Bps = 0;   ///< one rank's usable scale-up bandwidth, all its links together
  double cross_rate_Bps = 0;   ///< one rank's usable share of its node's NICs
  double local_latency_s = 0;  ///< route latency from a GPU to another of its node
  double cross_latency_s = 0;  ///< route latency from a GPU to the same-position GPU of another node

  bool operator==(const CollectiveCosts&) const = default;
};

/// What choosing and planning a collective needs to know of its communicator: shared by the SimGrid
/// communicator and the analytical executor, which has no SimGrid objects.
struct CommunicatorShape {
  int size = 0;
  bool hierarchical = false; ///< see CommunicatorLayout
  int per_node = 1;          ///< ranks on each node (meaningful when hierarchical)
  int nodes = 1;
  bool in_switch_reduction = false;
  bool in_network_reduction = false;
  CollectiveCosts costs;

  bool operator==(const CommunicatorShape&) const = default;
};

struct CommunicatorLayout {
  std::vector<int> gpu_ranks; ///< global GPU rank of each communicator rank
  RingGroup whole;            ///< every member: flat rings
  std::vector<RingGroup> locals;  ///< members sharing a node, in order
  std::vector<RingGroup> crosses; ///< members with the same position in their node (one rail each)
  /// True when the members span several nodes with the same number (> 1) on each: hierarchical
  /// algorithms apply.
  bool hierarchical = false;
  /// All members share one node whose switch reduces (NVLS): `auto` all-reduces in the switch.
  bool in_switch_reduction = false;
  /// The members span nodes on a fabric whose switches reduce (SHARP): `auto` runs the cross-node
  /// phase of a hierarchical all-reduce in the network.
  bool in_network_reduction = false;
  CollectiveCosts costs;

  int size() const { return static_cast<int>(gpu_ranks.size()); }
  CommunicatorShape shape() const;

  /// Ordered GPU-rank pairs the collectives send on: every channel's successors (flat, intra-node and
  /// cross-node), and (when `halving_doubling` and the size is a power of two) all butterfly partners.
  std::vector<std::pair<int, int>> route_pairs(bool halving_doubling) const;
};

/// The layout of `gpu_ranks` (global GPU ranks, in communicator order) on `topology`, with the
/// reduction hardware its nodes and fabric have and the costs `links` give its collectives.
CommunicatorLayout make_communicator_layout(std::vector<int> gpu_ranks, const TopologyGraph& topology,
                                            const model::LinkFractions& links);

bool is_power_of_two(int value);

} // namespace gpuscale::engine
