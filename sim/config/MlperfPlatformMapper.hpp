#pragma once
/// Turns an MLPerf system description into a gpuscale platform built from the catalog.
///
/// Accelerator: accelerator_model_name (with accelerator_memory_capacity) identified in the catalog by
/// identify_accelerator (AcceleratorIdentification.hpp). An unknown or ambiguous name is an error that
/// lists the closest catalog entries; a CPU-only system (no accelerators) is an error saying it is excluded.
///
/// Node type: the catalog node type of that accelerator with that many per node, if one exists;
/// else, when a catalog node type of that accelerator spans several hosts of that many (`hosts`: GB200
/// NVL72, 18 trays of 4), that NVLink domain: the system's hosts are grouped into domains of the most
/// whole hosts, up to the type's, that divide them evenly (72 GPUs: one rack; 512: 8 domains of 64),
/// with the trays' NICs and cores added up; otherwise one synthesised from the accelerator's entry:
///   intra-node fabric  NVIDIA SXM / scale-up parts (intra_node_bandwidth above PCIe Gen5 x16's
///                      64 GB/s): NVSwitch with >= 8 per node, NVLink full mesh below; other vendors'
///                      OAM parts (Infinity Fabric, Gaudi RoCE, TPU ICI): full mesh; PCIe cards: PCIe.
///   PCIe to the NIC    Gen5 x16 (64 GB/s) for hopper/blackwell/cdna3, Gen4 x16 (32 GB/s) otherwise.
///   NICs               parsed from host_networking (its "Compute:" or east-west part when listed,
///                      e.g. "8x ConnectX-7 IB NDR 400Gb/Sec" -> 8 x 400 Gb/s); when it says nothing
///                      usable: 1 x 100 Gb/s (noted).
///   host               host_processor_model_name, host_processors_per_node x host_processor_core_count.
/// An existing node type takes the JSON's NICs and host cores too, when the JSON states them.
///
/// Fabric between nodes:
///   1 node                              single_switch (no inter-node traffic)
///   >= 2 NVIDIA nodes, 1 NIC per GPU   rail_optimized, non-blocking spine (NVIDIA SuperPOD wiring)
///   2-32 nodes otherwise                single_switch (one leaf switch holds them)
///   > 32 nodes otherwise                fat_tree, 32 nodes per leaf, non-blocking
///
/// Reduction in the switches (used by `collective: auto`, as NCCL uses them when present):
///   NVLS      NVSwitch nodes of hopper / blackwell accelerators (third-generation NVSwitch and later)
///   SHARP     >= 2 nodes whose compute NICs are InfiniBand HDR, NDR or XDR (Quantum / Quantum-2
///             switches aggregate large messages); the JSONs never say whether a submission enabled
///             it, so this is an assumption the calibration's validation tests (docs/MLPERF_DATA.md,
///             "System description → platform")

#include "sim/model/MlperfSystem.hpp"
#include "sim/model/Platform.hpp"

#include <string>
#include <vector>

namespace gpuscale::config {

struct MlperfPlatformMapping {
  model::Platform platform; ///< the catalog accelerator, one node type, one node group, the fabric
  std::string gpu_type;     ///< catalog accelerator name
  std::string node_type;    ///< catalog node type name, or the synthesised one's
  std::string base_node_type; ///< "" when synthesised from the accelerator alone
  std::vector<std::string> notes; ///< assumptions made (defaults used, overrides applied)
};

/// The catalog accelerator `accelerator_model_name` names, or "" if none or ambiguous (identify_accelerator).
std::string find_catalog_accelerator(const model::Platform& catalog, const std::string& accelerator_model_name,
                                     const std::string& accelerator_memory_capacity = "");

/// NIC count and per-NIC bandwidth (bytes/s) stated in a host_networking text; count 0 if none.
struct StatedNics {
  int count = 0;
  double bandwidth_Bps = 0;
  bool infiniband_with_sharp = false; ///< InfiniBand HDR / NDR / XDR (or Quantum-2) named
};
StatedNics parse_host_networking(const std::string& host_networking);

/// Throws ConfigError located at accelerator_model_name for unknown accelerators and CPU-only systems.
MlperfPlatformMapping map_mlperf_system(const model::MlperfSystem& system, const model::Platform& catalog);

} // namespace gpuscale::config
