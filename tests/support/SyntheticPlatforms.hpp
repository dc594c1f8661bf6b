#pragma once
// Small platforms and workloads built in code, for tests whose expected values follow from a formula.

#include "sim/model/Scenario.hpp"

#include <string>

namespace gpuscale::testing {

inline model::GpuType synthetic_gpu(double peak_flop_per_s = 100e12)
{
  model::GpuType gpu;
  gpu.name = "test-gpu";
  gpu.vendor = "test";
  gpu.peak_flop_per_s[model::Precision::Bf16] = peak_flop_per_s;
  gpu.peak_flop_per_s[model::Precision::Fp32] = peak_flop_per_s / 16;
  gpu.memory_bytes = 80e9;
  gpu.memory_bw_Bps = 2e12;
  gpu.intra_node_bw_Bps = 100e9;
  gpu.tdp_w = 400;
  return gpu;
}

/// `nodes` nodes of `gpus_per_node` GPUs on an NVSwitch (bandwidth `intra_Bps`, latency `intra_latency_s`
/// per hop), one NIC per GPU on a single switch.
inline model::Platform synthetic_platform(int nodes, int gpus_per_node, double intra_Bps, double intra_latency_s,
                                          double nic_Bps = 25e9,
                                          model::FabricTopology topology = model::FabricTopology::SingleSwitch)
{
  model::Platform platform;
  platform.name = "synthetic";
  platform.gpu_types.emplace("test-gpu", synthetic_gpu());
  model::NodeType node;
  node.name = "test-node";
  node.gpu_type = "test-gpu";
  node.gpus_per_node = gpus_per_node;
  node.fabric = model::IntraNodeFabric::NvSwitch;
  node.intra_bw_Bps = intra_Bps;
  node.intra_latency_s = intra_latency_s;
  node.pcie_bw_Bps = 64e9;
  node.pcie_latency_s = 1e-6;
  node.nic_count = gpus_per_node;
  node.nic_bw_Bps = nic_Bps;
  node.nic_latency_s = 1e-6;
  node.host_cpu = "test-cpu";
  node.sockets = 2;
  node.cores_per_socket = 32;
  platform.node_types.emplace("test-node", node);
  platform.node_groups.push_back({"test-node", nodes});
  platform.fabric.topology = topology;
  platform.fabric.switch_latency_s = 0.5e-6;
  platform.fabric.nodes_per_leaf = 2;
  return platform;
}

/// Appends `nodes` nodes like the test node whose GPU ("slow-gpu") peaks at `peak_flop_per_s`.
inline void add_slow_nodes(model::Platform& platform, int nodes, double peak_flop_per_s)
{
  auto slow = synthetic_gpu(peak_flop_per_s);
  slow.name = "slow-gpu";
  platform.gpu_types.emplace("slow-gpu", slow);
  auto node = platform.node_types.at("test-node");
  node.name = "slow-node";
  node.gpu_type = "slow-gpu";
  platform.node_types.emplace("slow-node", node);
  platform.node_groups.push_back({"slow-node", nodes});
}

/// One trainable "layer" per entry of `layer_params`, each with `flop_per_sample` forward FLOPs.
inline model::WorkloadTrace synthetic_workload(const std::vector<double>& layer_params, double flop_per_sample)
{
  model::WorkloadTrace workload;
  workload.name = "synthetic";
  workload.precision = model::Precision::Bf16;
  workload.optimizer = model::Optimizer::Adam;
  for (std::size_t i = 0; i < layer_params.size(); ++i) {
    model::Layer layer;
    layer.name = "layer" + std::to_string(i);
    layer.kind = model::LayerKind::Linear;
    layer.trainable_params = layer_params[i];
    layer.forward_flop_per_sample = flop_per_sample;
    layer.backward_flop_per_sample = 2 * flop_per_sample;
    layer.activation_bytes_per_sample = 1e6;
    workload.layers.push_back(layer);
  }
  return workload;
}

inline model::ResolvedScenario synthetic_scenario(model::Platform platform, model::WorkloadTrace workload, int gpus,
                                                  int micro_batch, int accumulation = 1)
{
  model::ResolvedScenario resolved;
  resolved.platform = std::move(platform);
  resolved.workload = std::move(workload);
  auto& s = resolved.scenario;
  s.name = "synthetic";
  s.gpus = gpus;
  s.micro_batch_size = micro_batch;
  s.global_batch_size = micro_batch * gpus * accumulation;
  s.collective = model::CollectiveAlgorithm::Ring;
  s.efficiency.compute = 0.5;
  s.links.every_link = 1.0; // closed forms at line rate, no fixed costs
  // The ZeRO paper's schedules, whose volumes are closed forms: 25 MB buckets, ZeRO-3 gathering
  // before every use (3 Psi), no host time in DeepSpeed's hooks. Tests of DeepSpeed's defaults
  // (tests/engine/ZeroDeepSpeed_test.cpp) set them back.
  s.bucket_bytes = 25e6;
  s.zero3_max_reuse_distance_params = 0;
  s.zero_host = {0.0, 0.0};
  return resolved;
}

} // namespace gpuscale::testing
