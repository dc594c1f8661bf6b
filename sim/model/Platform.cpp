#include "sim/model/Platform.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpuscale::model {

std::optional<double> GpuType::peak_for(Precision precision) const
{
  // A format the device lacks runs in the closest one it has (fp16 and bf16 are interchangeable
  // for throughput; everything ends in fp32).
  std::vector<Precision> order{precision};
  switch (precision) {
    case Precision::Nvfp4:
    case Precision::Mxfp4: // the two 4-bit formats scale differently: neither stands in for the other
      order.insert(order.end(), {Precision::Fp8, Precision::Bf16, Precision::Fp16, Precision::Fp32});
      break;
    case Precision::Fp8: order.insert(order.end(), {Precision::Bf16, Precision::Fp16, Precision::Fp32}); break;
    case Precision::Bf16: order.insert(order.end(), {Precision::Fp16, Precision::Fp32}); break;
    case Precision::Fp16: order.insert(order.end(), {Precision::Bf16, Precision::Fp32}); break;
    case Precision::Tf32: order.push_back(Precision::Fp32); break;
    case Precision::Fp32: break;
  }
  for (Precision candidate : order)
    if (auto it = peak_flop_per_s.find(candidate); it != peak_flop_per_s.end())
      return it->second;
  return std::nullopt;
}

std::string to_string(IntraNodeFabric fabric)
{
  switch (fabric) {
    case IntraNodeFabric::NvSwitch: return "nvswitch";
    case IntraNodeFabric::NvlinkMesh: return "nvlink_mesh";
    case IntraNodeFabric::Pcie: return "pcie";
  }
  return "?";
}

std::string to_string(FabricTopology topology)
{
  switch (topology) {
    case FabricTopology::SingleSwitch: return "single_switch";
    case FabricTopology::FatTree: return "fat_tree";
    case FabricTopology::RailOptimized: return "rail_optimized";
  }
  return "?";
}

int Platform::node_count() const
{
  int nodes = 0;
  for (const auto& group : node_groups)
    nodes += group.count;
  return nodes;
}

std::vector<NodeGroupUse> Platform::groups_used(int gpus) const
{
  std::vector<NodeGroupUse> used;
  long long remaining = gpus;
  for (std::size_t g = 0; g < node_groups.size() && remaining > 0; ++g) {
    const int per_node = node_type_of_group(g).gpus_per_node;
    if (per_node <= 0)
      continue;
    const long long here = std::min<long long>(remaining, static_cast<long long>(node_groups[g].count) * per_node);
    used.push_back({g, static_cast<int>((here + per_node - 1) / per_node), static_cast<int>(here)});
    remaining -= here;
  }
  return used;
}

int Platform::gpu_count() const
{
  int gpus = 0;
  for (std::size_t i = 0; i < node_groups.size(); ++i)
    gpus += node_groups[i].count * node_type_of_group(i).gpus_per_node;
  return gpus;
}

const NodeType& Platform::node_type_of_group(std::size_t group) const
{
  auto it = node_types.find(node_groups.at(group).node_type);
  if (it == node_types.end())
    throw std::logic_error("platform '" + name + "' references node type '" + node_groups.at(group).node_type +
                           "' that the reader did not resolve");
  return it->second;
}

const GpuType& Platform::gpu_type_of(const NodeType& node_type) const
{
  auto it = gpu_types.find(node_type.gpu_type);
  if (it == gpu_types.end())
    throw std::logic_error("node type '" + node_type.name + "' references accelerator '" + node_type.gpu_type +
                           "' that the reader did not resolve");
  return it->second;
}

void derive_generation_available_years(std::map<std::string, GpuType>& gpu_types)
{
  std::map<std::string, double> earliest; // generation -> year
  for (const auto& [name, type] : gpu_types)
    if (type.available_since_year > 0) {
      auto [it, fresh] = earliest.try_emplace(type.generation, type.available_since_year);
      it->second = std::min(it->second, type.available_since_year);
    }
  for (auto& [name, type] : gpu_types) {
    const auto it = earliest.find(type.generation);
    type.generation_available_year = it != earliest.end() ? it->second : 0.0;
  }
}

} // namespace gpuscale::model
