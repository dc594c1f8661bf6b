#pragma once
/// What a link delivers of its datasheet rate, as a property of the hardware and of NCCL's protocol,
/// never of the run: an NVSwitch port runs at the same fraction whether the job spans one node or a
/// thousand. Every fraction is in (0, 1], so no link runs above its line rate.
///
///   link class     edges it covers                                   reference (shared/references)
///   nvswitch       GPU <-> NVSwitch                                  ring busbw 370 of 450 GB/s (H100)
///   nvlink_mesh    GPU <-> GPU in a full NVLink / xGMI mesh
///   pcie           GPU <-> PCIe switch, when the node's fabric is PCIe
///   nic            GPU <-> NIC (GPUDirect RDMA over PCIe) and NIC <-> switches, switch <-> switch
///
/// A key may name a generation, `nvswitch@ampere`, which wins over the plain `nvswitch` for GPUs of
/// that generation. `nvls` is the NVSwitch fraction while NVLink SHARP moves (1 + 1/g) S per GPU and
/// direction (NCCL's NVLS all-reduce reaches algbw ~275 GB/s on 8 H100: 275 x 1.125 / 450 = 0.69).

#include "sim/model/Platform.hpp"

#include <map>
#include <optional>
#include <string>

namespace gpuscale::model {

enum class LinkClass { NvSwitch, NvlinkMesh, Pcie, Nic };
/// "nvswitch", "nvlink_mesh", "pcie", "nic": the keys of `network:` in a calibration file.
std::string to_string(LinkClass link_class);

/// The class of the links joining a node's GPUs.
LinkClass scale_up_link_class(IntraNodeFabric fabric);

/// The key of NVLS's fraction in `network:`.
inline constexpr const char* kNvlsKey = "nvls";
/// A class (or nvls) without an entry runs at this fraction: NCCL's Simple protocol on NVLink4, the
/// best-measured link of the references (370 / 450 GB/s).
inline constexpr double kDefaultLinkFraction = 370.0 / 450.0;

/// The usable fractions a run's links get, and the fixed costs every collective pays.
struct LinkFractions {
  std::map<std::string, double> fraction; ///< "nvswitch", "nvswitch@ampere", "nvls@hopper", "nic", ...
  /// The scenario's `efficiency: {network: x}`, a what-if: every link (and NVLS) at fraction x.
  std::optional<double> every_link;
  /// Per collective and rank: kernel launch and protocol start (paid once, whatever the size).
  double collective_fixed_s = 0;
  /// Per ring step of NCCL's Simple protocol: the flag/fence synchronisation of each chunk, which the
  /// low-latency protocol (LL) does not pay; LL instead moves a 4-byte flag with every 4 bytes.
  double simple_step_s = 0;

  /// The fraction of `link_class` for GPUs of `generation` ("" for links that belong to no GPU).
  double of(LinkClass link_class, const std::string& generation) const;
  /// The NVSwitch fraction under NVLS for GPUs of `generation`.
  double nvls(const std::string& generation) const;

  bool operator==(const LinkFractions&) const = default;

private:
  double lookup(const std::string& key, const std::string& generation) const;
};

/// LL's bandwidth relative to Simple's: every 8-byte store carries 4 bytes of data and a 4-byte flag
/// (NCCL's LL protocol), so the wire carries twice the payload.
inline constexpr double kLowLatencyWireFactor = 2.0;

} // namespace gpuscale::model
