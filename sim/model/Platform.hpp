#pragma once
/// A GPU cluster as gpuscale models it: accelerator types, node types built from them, and a
/// cluster of node groups joined by an inter-node fabric. Plain immutable data, SI units.

#include "sim/model/Precision.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::model {

/// One accelerator model from the catalog (datasheet figures, dense peaks).
struct GpuType {
  std::string name;
  std::string display_name;
  std::string vendor;
  std::string generation;
  std::vector<std::string> aliases;
  std::map<Precision, double> peak_flop_per_s; ///< dense peak per precision; absent = unsupported
  double memory_bytes = 0;
  std::string memory_type; ///< "HBM3", "HBM3e", "GDDR6", ... as the datasheet writes it; "" = not given
  double memory_bw_Bps = 0;
  double intra_node_bw_Bps = 0; ///< per direction, all scale-up links together
  double tdp_w = 0;
  std::optional<double> price_usd_per_hour;
  int compute_units = 0; ///< SMs (NVIDIA), CUs (AMD), matrix engines (Gaudi), MXUs (TPU); 0 = unknown
  /// First general availability (volume shipments) of the part as a decimal year, on the scale of
  /// SoftwareDate (the catalog's "2023-04" is 1 April 2023 = 2023.247); 0 = not given. A generation's
  /// age at a run's software date is what software maturity can be modelled on.
  double available_since_year = 0;
  /// When the first part of its generation became available: the earliest available_since_year of the
  /// catalog's entries of that generation (derive_generation_available_years), decimal year; 0 =
  /// unknown. Software for the generation matures from then on (SoftwareMaturity.hpp).
  double generation_available_year = 0;

  /// Peak for `precision`; falls back to the closest format the device has (fp4 -> fp8 -> bf16 -> fp32),
  /// as frameworks do when a format is missing. nullopt only if the device has none of them.
  std::optional<double> peak_for(Precision precision) const;
};

enum class IntraNodeFabric { NvSwitch, NvlinkMesh, Pcie };
std::string to_string(IntraNodeFabric fabric);

/// A server model: how many accelerators, how they are wired inside, and its NICs and host CPU.
struct NodeType {
  std::string name;
  std::string gpu_type;
  int gpus_per_node = 0;
  /// Hosts (servers, compute trays) the node's scale-up fabric spans: 1 for a server, 18 for a GB200
  /// NVL72 rack, whose 72 GPUs in 18 trays of 4 share one NVLink domain. gpus_per_node is a multiple.
  int hosts = 1;
  IntraNodeFabric fabric = IntraNodeFabric::NvSwitch;
  double intra_bw_Bps = 0;    ///< per GPU, per direction
  double intra_latency_s = 0; ///< one hop GPU -> fabric
  /// The switch reduces and multicasts (NVLink SHARP, third-generation NVSwitch and later): NCCL's
  /// NVLS all-reduce moves S per GPU and direction instead of a ring's 2(g-1)/g S.
  bool in_switch_reduction = false;
  double pcie_bw_Bps = 0;     ///< GPU <-> NIC, per direction
  double pcie_latency_s = 0;
  int nic_count = 0;
  double nic_bw_Bps = 0; ///< per NIC, per direction
  double nic_latency_s = 0;
  std::string host_cpu;
  int sockets = 0;
  int cores_per_socket = 0;

  int host_cores() const { return sockets * cores_per_socket; }
};

enum class FabricTopology { SingleSwitch, FatTree, RailOptimized };
std::string to_string(FabricTopology topology);

/// Network joining the nodes.
struct InterNodeFabric {
  FabricTopology topology = FabricTopology::SingleSwitch;
  double switch_latency_s = 0;
  int nodes_per_leaf = 0;        ///< fat_tree only
  double oversubscription = 1.0; ///< fat_tree only: leaf downlink / uplink capacity
  std::optional<double> spine_bw_Bps; ///< rail_optimized only: per rail-switch uplink
  /// The switches reduce (InfiniBand SHARP): an all-reduce across nodes moves S/g per NIC and
  /// direction, with two tree traversals of latency, instead of a ring's 2(n-1)/n S/g.
  bool in_network_reduction = false;
};

struct NodeGroup {
  std::string node_type;
  int count = 0;
};

/// The part of one node group a run uses.
struct NodeGroupUse {
  std::size_t group = 0; ///< index into Platform::node_groups
  int nodes = 0;         ///< nodes of the group the run touches (the last one may be partly used)
  int gpus = 0;          ///< GPUs of the group the run uses
};

/// A whole platform file, with the catalog entries it imported.
struct Platform {
  std::string name;
  std::string description;
  std::map<std::string, GpuType> gpu_types;
  std::map<std::string, NodeType> node_types;
  std::vector<NodeGroup> node_groups;
  InterNodeFabric fabric;
  /// The files read for it: the user's catalogs (--catalog), the platform file, then the catalog files
  /// it imported (a sweep hashes them, so that a resume after any of them changed is refused; no
  /// command writes over them).
  std::vector<std::string> source_files;

  int node_count() const;
  int gpu_count() const;
  const NodeType& node_type_of_group(std::size_t group) const;
  const GpuType& gpu_type_of(const NodeType& node_type) const;
  /// A run of `gpus` GPUs uses the platform's first `gpus` GPUs in node-group order (whole nodes
  /// first, the last node possibly in part): the groups it touches, in order. Ranks are numbered in
  /// the same order. Fewer GPUs than asked when the platform has fewer.
  std::vector<NodeGroupUse> groups_used(int gpus) const;
};

/// Sets every type's generation_available_year to the earliest available_since_year among the types
/// of its generation (those without a date ignored; 0 when none of them has one): software for a
/// generation (a B300 runs Blackwell's kernels and libraries) starts with its first part.
void derive_generation_available_years(std::map<std::string, GpuType>& gpu_types);

} // namespace gpuscale::model
