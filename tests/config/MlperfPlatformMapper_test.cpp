#include "sim/config/ConfigError.hpp"
#include "sim/config/MlperfPlatformMapper.hpp"
#include "sim/config/MlperfSystemReader.hpp"
#include "sim/config/PlatformReader.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

const std::string kData = std::string(GPUSCALE_SOURCE_DIR) + "/tests/data/mlperf/";

const model::Platform& catalog()
{
  static const model::Platform platform = config::read_platform(std::string(GPUSCALE_SOURCE_DIR) + "/calibration/catalog.yaml");
  return platform;
}

model::MlperfSystem system_of(const std::string& accelerator, int nodes, int per_node, const std::string& networking)
{
  model::MlperfSystem s;
  s.file = "s.json";
  s.submitter = "Acme";
  s.system_name = "box";
  s.accelerator_model_name = accelerator;
  s.number_of_nodes = nodes;
  s.accelerators_per_node = per_node;
  s.host_networking = networking;
  return s;
}

} // namespace

TEST_CASE("config::parse_host_networking reads the compute NICs of MLPerf host_networking texts", "[config]")
{
  using config::parse_host_networking;
  const auto nvidia = parse_host_networking(
      "Storage: 2x ConnectX-7 IB NDR 400Gb/s, Compute: 8x ConnectX-7 IB NDR 400Gb/s, Management: 100Gb/s Ethernet NIC");
  CHECK(nvidia.count == 8);
  CHECK(nvidia.bandwidth_Bps == Approx(50e9));
  const auto dell = parse_host_networking("4x ConnectX-7 IB NDR 400Gb/Sec");
  CHECK(dell.count == 4);
  CHECK(dell.bandwidth_Bps == Approx(50e9));
  const auto l40s = parse_host_networking("BF3 200Gbps for NS and 2xBF3 400Gbps for EW");
  CHECK(l40s.count == 2);
  CHECK(l40s.bandwidth_Bps == Approx(50e9));
  const auto clemson = parse_host_networking(
      "Management: 1 x 25 Gb / Sec Ethernet, Compute: 1 x ConnectX - 6 IB HDR100 100 Gb / Sec");
  CHECK(clemson.count == 1);
  CHECK(clemson.bandwidth_Bps == Approx(12.5e9));
  CHECK(parse_host_networking("Ethernet, Infiniband").count == 0);
  CHECK(parse_host_networking("Management: 1x Ethernet 10GB/Sec").count == 0);
  CHECK(parse_host_networking("").count == 0);
}

TEST_CASE("config::map_mlperf_system uses the catalog node type and a rail-optimised fabric for DGX clusters",
          "[config]")
{
  const auto mapping = config::map_mlperf_system(
      system_of("NVIDIA H100-SXM5-80GB", 4, 8, "Compute: 8x ConnectX-7 IB NDR 400Gb/s"), catalog());
  CHECK(mapping.gpu_type == "h100-sxm5-80gb");
  CHECK(mapping.base_node_type == "dgx-h100");
  CHECK(mapping.platform.node_groups.front().count == 4);
  CHECK(mapping.platform.fabric.topology == model::FabricTopology::RailOptimized);
  const auto single = config::map_mlperf_system(system_of("H100-SXM-80GB", 1, 8, ""), catalog());
  CHECK(single.platform.fabric.topology == model::FabricTopology::SingleSwitch);
  const auto pcie = config::map_mlperf_system(system_of("NVIDIA L40S", 40, 4, "1x ConnectX-6 100Gb/s"), catalog());
  CHECK(pcie.platform.fabric.topology == model::FabricTopology::FatTree);
  CHECK(pcie.platform.node_types.at(pcie.node_type).nic_count == 1);
}

TEST_CASE("config::map_mlperf_system joins GB200 compute trays into the rack's NVLink domain", "[config]")
{
  // MLPerf describes a GB200 NVL72 rack as 18 nodes of 4 GPUs; its GPUs talk over one NVSwitch
  // domain, not over the trays' NICs. 72 GPUs: one rack; 512 (128 trays): 8 domains of 16 trays, the
  // most whole trays up to 18 that divide 128; 17 trays: one domain of 17.
  const std::string nics = "Compute: 4x ConnectX-7 IB NDR 400Gb/s";
  const auto rack = config::map_mlperf_system(system_of("NVIDIA GB200", 18, 4, nics), catalog());
  CHECK(rack.base_node_type == "gb200-nvl72");
  CHECK(rack.node_type == "gb200-nvl72");
  CHECK(rack.platform.node_groups.front().count == 1);
  const auto& domain = rack.platform.node_types.at(rack.node_type);
  CHECK(domain.gpus_per_node == 72);
  CHECK(domain.hosts == 18);
  CHECK(domain.fabric == model::IntraNodeFabric::NvSwitch);
  CHECK(domain.in_switch_reduction);
  CHECK(domain.nic_count == 72); // 4 per tray, 18 trays
  const auto racks = config::map_mlperf_system(system_of("NVIDIA GB200", 128, 4, nics), catalog());
  CHECK(racks.platform.node_groups.front().count == 8);
  CHECK(racks.platform.node_types.at(racks.node_type).gpus_per_node == 64);
  CHECK(racks.platform.fabric.topology == model::FabricTopology::RailOptimized);
  const auto odd = config::map_mlperf_system(system_of("NVIDIA GB200", 17, 4, nics), catalog());
  CHECK(odd.platform.node_groups.front().count == 1);
  CHECK(odd.platform.node_types.at(odd.node_type).gpus_per_node == 68);
  // A description of the rack as one node of 72 is the catalog's node type as it stands.
  const auto whole = config::map_mlperf_system(system_of("NVIDIA GB200", 1, 72, nics), catalog());
  CHECK(whole.node_type == "gb200-nvl72");
  // A server of 4 H100 is not half a DGX H100: only a node type spanning several hosts joins them.
  const auto four = config::map_mlperf_system(system_of("NVIDIA H100-SXM5-80GB", 4, 4, nics), catalog());
  CHECK(four.platform.node_groups.front().count == 4);
  CHECK(four.platform.node_types.at(four.node_type).gpus_per_node == 4);
}

TEST_CASE("config::map_mlperf_system synthesises a node type the catalog lacks", "[config]")
{
  const auto two = config::map_mlperf_system(system_of("NVIDIA H100-SXM5-80GB", 1, 2, ""), catalog());
  CHECK(two.base_node_type.empty());
  const auto& node = two.platform.node_types.at(two.node_type);
  CHECK(node.fabric == model::IntraNodeFabric::NvlinkMesh);
  CHECK(node.gpus_per_node == 2);
  CHECK(node.nic_count == 1); // host_networking states none: 1 x 100 Gb/s, noted
  CHECK(two.notes.size() == 2);
  const auto cards = config::map_mlperf_system(system_of("NVIDIA L4", 1, 3, ""), catalog());
  CHECK(cards.platform.node_types.at(cards.node_type).fabric == model::IntraNodeFabric::Pcie);
  // A PCIe card reaches its NIC over its own link: Gen4 x16 for the L4, Gen5 x16 for the RTX PRO 6000.
  CHECK(cards.platform.node_types.at(cards.node_type).pcie_bw_Bps == Approx(32e9));
  const auto gen5 = config::map_mlperf_system(system_of("NVIDIA RTX PRO 6000 Blackwell", 1, 4, ""), catalog());
  CHECK(gen5.platform.node_types.at(gen5.node_type).pcie_bw_Bps == Approx(64e9));
}

TEST_CASE("config::map_mlperf_system rejects unknown accelerators and CPU-only systems, located", "[config]")
{
  const std::string unknown = kData + "invalid_unknown_accelerator.json";
  CHECK_THROWS_WITH(config::map_mlperf_system(config::read_mlperf_system(unknown), catalog()),
                    unknown + ":5:31: error: /accelerator_model_name: unknown accelerator 'Acme TensorBlaster 9000': "
                              "no catalog entry has part number '9000' (closest catalog entries: rtx-pro-6000-blackwell, "
                              "a100-pcie-80gb, a100-sxm4-40gb, a100-sxm4-80gb, a800-sxm4-80gb; add it with --catalog FILE)");
  const std::string cpu = kData + "invalid_cpu_only.json";
  CHECK_THROWS_WITH(config::map_mlperf_system(config::read_mlperf_system(cpu), catalog()),
                    cpu + ":5:31: error: /accelerator_model_name: CPU-only system ('N/A', 0 accelerators per node): "
                          "excluded, gpuscale simulates accelerators");
}
