#include "sim/model/Calibration.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpuscale::model {

Efficiency Calibration::efficiency_for(const std::string& benchmark, const std::string& generation_name,
                                       FabricClass fabric) const
{
  Efficiency efficiency;
  const auto c = compute.find(benchmark);
  const auto g = generation.find(generation_name);
  const double factor = g != generation.end() ? g->second.value : 1.0;
  if (c != compute.end())
    efficiency.compute = std::min(kMaxComputeEfficiency, c->second.value * factor);
  if (const auto m = memory.find(benchmark); m != memory.end())
    efficiency.memory = m->second.value;
  if (const auto n = network.find(to_string(fabric)); n != network.end()) {
    efficiency.network = n->second.value;
  } else if (!network.empty()) {
    double sum = 0;
    for (const auto& [name, value] : network)
      sum += value.value;
    efficiency.network = sum / static_cast<double>(network.size());
  }
  if (const auto o = step_overhead_s.find(benchmark); o != step_overhead_s.end())
    efficiency.step_overhead_s = o->second.value;
  return efficiency;
}

double Calibration::overhead_s_for(const std::string& benchmark) const
{
  const auto it = overhead_s.find(benchmark);
  return it != overhead_s.end() ? it->second.value : 0.0;
}

std::optional<int> Calibration::batch_size_for(const std::string& benchmark, int accelerators) const
{
  const BatchSizeRule* largest = nullptr;
  for (const auto& rule : batch_sizes) {
    if (rule.benchmark != benchmark)
      continue;
    if (accelerators <= rule.max_accelerators)
      return rule.global_batch_size;
    largest = &rule;
  }
  if (largest != nullptr)
    return largest->global_batch_size;
  return std::nullopt;
}

ParameterRange parameter_range(const std::string& key)
{
  if (key == "compute")
    return kComputeRange;
  if (key == "generation")
    return kGenerationRange;
  if (key == "memory")
    return kMemoryRange;
  if (key == "network")
    return kNetworkRange;
  if (key == "step_overhead")
    return kStepOverheadRange_s;
  if (key == "overhead")
    return kRunOverheadRange_s;
  throw std::invalid_argument("no calibration parameter group '" + key + "'");
}

std::string to_string(FabricClass fabric)
{
  switch (fabric) {
    case FabricClass::NvSwitch: return "nvswitch";
    case FabricClass::NvlinkMesh: return "nvlink_mesh";
    case FabricClass::Pcie: return "pcie";
    case FabricClass::InterNode: return "inter_node";
  }
  return "?";
}

FabricClass fabric_class_of(const Platform& platform, int gpus)
{
  if (platform.node_groups.empty())
    return FabricClass::NvSwitch;
  const NodeType& node = platform.node_type_of_group(0);
  if (gpus > node.gpus_per_node)
    return FabricClass::InterNode;
  switch (node.fabric) {
    case IntraNodeFabric::NvSwitch: return FabricClass::NvSwitch;
    case IntraNodeFabric::NvlinkMesh: return FabricClass::NvlinkMesh;
    case IntraNodeFabric::Pcie: return FabricClass::Pcie;
  }
  return FabricClass::NvSwitch;
}

} // namespace gpuscale::model
