#include "sim/config/MlperfPlatformMapper.hpp"

#include "sim/config/AcceleratorIdentification.hpp"
#include "sim/config/ConfigError.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace gpuscale::config {
namespace {

constexpr double kGbit = 1e9 / 8.0; // bytes/s in 1 Gb/s
constexpr double kPcieGen5x16_Bps = 64e9;
constexpr double kPcieGen4x16_Bps = 32e9;
constexpr int kSingleSwitchMaxNodes = 32;

void fail(const model::MlperfSystem& system, const std::string& message)
{
  throw ConfigError({{system.file, system.accelerator_model_line, system.accelerator_model_column,
                      "/accelerator_model_name", message}});
}

/// The part of host_networking that describes the compute fabric.
std::string compute_part(const std::string& text)
{
  std::vector<std::string> parts;
  std::string current;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const bool end = i == text.size() || text[i] == ',' || text[i] == ';' || text.compare(i, 5, " and ") == 0;
    if (!end) {
      current += text[i];
      continue;
    }
    parts.push_back(current);
    current.clear();
    if (i < text.size() && text[i] == ' ')
      i += 4;
  }
  for (const auto& part : parts)
    if (lower_blank_normalised(part).starts_with("compute"))
      return part;
  for (const auto& part : parts)
    if (lower_blank_normalised(part).find(" ew") != std::string::npos)
      return part;
  for (const auto& part : parts) {
    const std::string p = lower_blank_normalised(part);
    if (!p.starts_with("storage") && !p.starts_with("management"))
      return part;
  }
  return "";
}

bool scale_up_part(const model::GpuType& gpu)
{
  return gpu.intra_node_bw_Bps > kPcieGen5x16_Bps + 1.0;
}

/// Hosts per NVLink domain for a system of hosts that `domain` (a node type spanning several hosts)
/// joins: the most whole hosts, up to the domain's, that divide the system's hosts evenly. NVIDIA's
/// GB200 systems fill 64 of a rack's 72 GPUs where 72 does not divide the system (512 GPUs: 8 racks of
/// 16 trays), which this rule gives.
int domain_hosts(const model::NodeType& domain, const model::MlperfSystem& system)
{
  for (int hosts = std::min(domain.hosts, system.number_of_nodes); hosts > 1; --hosts)
    if (system.number_of_nodes % hosts == 0)
      return hosts;
  return 1;
}

model::NodeType synthesise_node_type(const model::GpuType& gpu, int per_node, std::vector<std::string>& notes)
{
  model::NodeType node;
  node.gpu_type = gpu.name;
  node.gpus_per_node = per_node;
  if (!scale_up_part(gpu))
    node.fabric = model::IntraNodeFabric::Pcie;
  else if (gpu.vendor == "nvidia" && per_node >= 8)
    node.fabric = model::IntraNodeFabric::NvSwitch;
  else
    node.fabric = model::IntraNodeFabric::NvlinkMesh;
  node.in_switch_reduction = node.fabric == model::IntraNodeFabric::NvSwitch &&
                             (gpu.generation == "hopper" || gpu.generation == "blackwell");
  node.intra_bw_Bps = gpu.intra_node_bw_Bps;
  node.intra_latency_s = 1e-6;
  // A PCIe card reaches its NIC over its own link, which the catalog states as its intra-node bandwidth
  // (Gen4 or Gen5 x16); a scale-up part's host link follows its generation.
  const bool gen5 = gpu.generation == "hopper" || gpu.generation == "blackwell" || gpu.generation == "cdna3";
  node.pcie_bw_Bps = !scale_up_part(gpu) ? gpu.intra_node_bw_Bps : gen5 ? kPcieGen5x16_Bps : kPcieGen4x16_Bps;
  node.pcie_latency_s = 1e-6;
  node.nic_count = 1;
  node.nic_bw_Bps = 100 * kGbit;
  node.nic_latency_s = 1e-6;
  node.host_cpu = "unknown";
  node.sockets = 1;
  node.cores_per_socket = 4 * per_node;
  notes.push_back("node type synthesised from catalog accelerator '" + gpu.name + "': " + model::to_string(node.fabric) +
                  " inside the node");
  return node;
}

} // namespace

std::string find_catalog_accelerator(const model::Platform& catalog, const std::string& accelerator_model_name,
                                     const std::string& accelerator_memory_capacity)
{
  return identify_accelerator(catalog.gpu_types, accelerator_model_name, accelerator_memory_capacity).gpu_type;
}

StatedNics parse_host_networking(const std::string& host_networking)
{
  // "400Gb/Sec", "400Gb/s", "200Gbps", "100 Gb / Sec", "10GB/Sec" (bytes), optionally "8x " before.
  static const std::regex bandwidth(R"((\d+(?:\.\d+)?)\s*([GT])\s*([bB])\s*(?:/\s*[sS](?:ec)?|ps)\b)");
  static const std::regex count(R"((\d+)\s*[xX]\s*)");
  const std::string part = compute_part(host_networking);
  std::smatch match;
  StatedNics nics;
  const std::string words = " " + lower_blank_normalised(part) + " ";
  const bool infiniband = words.find(" ib ") != std::string::npos || words.find("infiniband") != std::string::npos;
  nics.infiniband_with_sharp =
      infiniband && (words.find(" hdr") != std::string::npos || words.find(" ndr") != std::string::npos ||
                     words.find(" xdr") != std::string::npos || words.find("quantum-2") != std::string::npos);
  if (!std::regex_search(part, match, bandwidth))
    return nics;
  const double scale = (match[2].str() == "T" ? 1e12 : 1e9) / (match[3].str() == "b" ? 8.0 : 1.0);
  nics.bandwidth_Bps = std::stod(match[1].str()) * scale;
  const std::string before = match.prefix().str();
  std::smatch count_match;
  nics.count = std::regex_search(before, count_match, count) ? std::stoi(count_match[1].str()) : 1;
  return nics;
}

MlperfPlatformMapping map_mlperf_system(const model::MlperfSystem& system, const model::Platform& catalog)
{
  if (system.accelerators_per_node <= 0 || lower_blank_normalised(system.accelerator_model_name) == "n/a")
    fail(system, "CPU-only system ('" + system.accelerator_model_name + "', " +
                     std::to_string(system.accelerators_per_node) +
                     " accelerators per node): excluded, gpuscale simulates accelerators");
  MlperfPlatformMapping mapping;
  const AcceleratorIdentification identified =
      identify_accelerator(catalog.gpu_types, system.accelerator_model_name, system.accelerator_memory_capacity);
  if (identified.gpu_type.empty())
    fail(system, identified.error);
  mapping.gpu_type = identified.gpu_type;
  if (!identified.note.empty())
    mapping.notes.push_back(identified.note);
  const model::GpuType& gpu = catalog.gpu_types.at(mapping.gpu_type);
  const int per_node = system.accelerators_per_node;

  model::NodeType node;
  for (const auto& [name, candidate] : catalog.node_types)
    if (candidate.gpu_type == gpu.name && candidate.gpus_per_node == per_node) {
      node = candidate;
      mapping.base_node_type = name;
      break;
    }
  // A description that counts the hosts of a rack-scale NVLink domain as its nodes (GB200 NVL72: 18
  // compute trays of 4 GPUs) gets the domain as one node: the GPUs of one rack talk over NVLink, not
  // over their trays' NICs.
  int hosts_per_node = 1;
  if (mapping.base_node_type.empty())
    for (const auto& [name, candidate] : catalog.node_types)
      if (candidate.gpu_type == gpu.name && candidate.hosts > 1 && candidate.gpus_per_node / candidate.hosts == per_node) {
        hosts_per_node = domain_hosts(candidate, system);
        node = candidate;
        node.gpus_per_node = hosts_per_node * per_node;
        node.hosts = hosts_per_node;
        node.nic_count = candidate.nic_count * hosts_per_node / candidate.hosts;
        mapping.base_node_type = name;
        mapping.notes.push_back(
            std::to_string(system.number_of_nodes) + " hosts of " + std::to_string(per_node) + " " + gpu.name +
            " form " + std::to_string(system.number_of_nodes / hosts_per_node) + " NVLink domain(s) of " +
            std::to_string(node.gpus_per_node) + " (catalog node type " + name + ", " + std::to_string(candidate.hosts) +
            " hosts; a domain holds the most whole hosts, up to that, that divide the system evenly)");
        break;
      }
  if (mapping.base_node_type.empty())
    node = synthesise_node_type(gpu, per_node, mapping.notes);

  const StatedNics nics = parse_host_networking(system.host_networking);
  if (nics.count > 0) {
    node.nic_count = nics.count * hosts_per_node;
    node.nic_bw_Bps = nics.bandwidth_Bps;
  } else if (mapping.base_node_type.empty()) {
    mapping.notes.push_back("host_networking states no compute NICs: 1 x 100 Gb/s assumed");
  }
  if (system.host_processor_core_count > 0 && system.host_processors_per_node > 0) {
    node.sockets = system.host_processors_per_node * hosts_per_node;
    node.cores_per_socket = system.host_processor_core_count;
    node.host_cpu = system.host_processor_model_name;
  }
  if (mapping.base_node_type.empty())
    mapping.node_type = gpu.name + "-x" + std::to_string(per_node);
  else if (node.gpus_per_node != catalog.node_types.at(mapping.base_node_type).gpus_per_node)
    mapping.node_type = mapping.base_node_type + "-" + std::to_string(node.gpus_per_node) + "gpu";
  else
    mapping.node_type = mapping.base_node_type;
  node.name = mapping.node_type;
  const int nodes = system.number_of_nodes / hosts_per_node;

  model::Platform& platform = mapping.platform;
  platform.name = "mlperf-" + system.submitter + "-" + system.system_name;
  platform.description = "MLPerf system " + system.file;
  platform.gpu_types.emplace(gpu.name, gpu);
  platform.node_types.emplace(node.name, node);
  platform.node_groups.push_back({node.name, nodes});
  model::InterNodeFabric& fabric = platform.fabric;
  fabric.switch_latency_s = 0.5e-6;
  if (nodes >= 2 && node.nic_count == node.gpus_per_node && gpu.vendor == "nvidia") {
    fabric.topology = model::FabricTopology::RailOptimized;
  } else if (nodes > kSingleSwitchMaxNodes) {
    fabric.topology = model::FabricTopology::FatTree;
    fabric.nodes_per_leaf = kSingleSwitchMaxNodes;
  } else {
    fabric.topology = model::FabricTopology::SingleSwitch;
  }
  fabric.in_network_reduction = nodes >= 2 && nics.infiniband_with_sharp;
  if (fabric.in_network_reduction)
    mapping.notes.push_back("InfiniBand HDR/NDR/XDR compute fabric: SHARP in-network reduction unless the "
                            "calibration's declared choice sharp_on_infiniband says otherwise");
  return mapping;
}

} // namespace gpuscale::config
