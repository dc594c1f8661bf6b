// The nccl-tests benchmark and the collectives only it runs (broadcast, all-to-all), against their
// alpha-beta closed forms (SimGrid CM02, factors 1, no cross-traffic) and as properties over the
// shipped platforms.

#include "sim/config/CalibrationReader.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/engine/CollectiveBenchmark.hpp"
#include "sim/engine/TopologyGraph.hpp"
#include "sim/model/ScenarioResolution.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

using namespace gpuscale;
using model::CollectiveAlgorithm;
using model::NcclTestsCollective;

namespace {

// One NVSwitch node: the route GPU i -> GPU j crosses two links of latency L and bandwidth B, so the
// route latency is alpha = 2L and the bottleneck bandwidth B.
constexpr double kLinkBps = 100e9;
constexpr double kHopLatency_s = 1e-6;
constexpr double kAlpha_s = 2 * kHopLatency_s;

std::vector<double> times_of(const model::Platform& platform, NcclTestsCollective op, CollectiveAlgorithm algorithm,
                             int gpus, const std::vector<double>& sizes, int root = 0)
{
  engine::CollectiveBenchmarkSpec spec;
  spec.op = op;
  spec.algorithm = algorithm;
  spec.gpus = gpus;
  spec.sizes_bytes = sizes;
  spec.root = root;
  engine::BenchmarkNetwork network; // links at line rate, no fixed costs: the closed forms
  network.links.every_link = 1.0;
  std::vector<double> times;
  for (const auto& row : engine::benchmark_collective(platform, spec, network))
    times.push_back(row.time_s);
  return times;
}

/// Sum of the link latencies on the route from GPU `src` to GPU `dst`.
double route_latency_s(const engine::TopologyGraph& topology, int src, int dst)
{
  double latency_s = 0;
  for (const auto& hop : topology.route(src, dst))
    latency_s += topology.graph[topology.edges_by_id[hop.edge_id]].latency_s;
  return latency_s;
}

} // namespace

TEST_CASE("engine ring broadcast matches S/B + (p-1)a from any root", "[engine][collectives][benchmark]")
{
  const std::vector<double> sizes{1e6, 64e6, 1e9};
  for (int p : {2, 3, 8, 16}) {
    const auto platform = testing::synthetic_platform(1, p, kLinkBps, kHopLatency_s);
    for (int root : {0, p - 1}) {
      const auto times = times_of(platform, NcclTestsCollective::Broadcast, CollectiveAlgorithm::Auto, p, sizes, root);
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        INFO("p = " << p << ", root " << root << ", " << sizes[i] << " B");
        CHECK(times[i] == Approx(sizes[i] / kLinkBps + (p - 1) * kAlpha_s).epsilon(1e-6));
      }
    }
  }
}

TEST_CASE("engine all-to-all on one switch matches a + (p-1)/p S/B", "[engine][collectives][benchmark]")
{
  // Each GPU's up-link and down-link carry p-1 flows of S/p at once: each flow gets B/(p-1).
  const std::vector<double> sizes{8e6, 256e6};
  for (int p : {2, 4, 8}) {
    const auto platform = testing::synthetic_platform(1, p, kLinkBps, kHopLatency_s);
    const auto times = times_of(platform, NcclTestsCollective::AllToAll, CollectiveAlgorithm::Auto, p, sizes);
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      INFO("p = " << p << ", " << sizes[i] << " B");
      CHECK(times[i] == Approx(kAlpha_s + (p - 1.0) / p * sizes[i] / kLinkBps).epsilon(1e-6));
    }
  }
}

TEST_CASE("engine all-to-all across nodes is bound by the NIC its cross-node flows share",
          "[engine][collectives][benchmark]")
{
  // 2 nodes x 4 GPUs, one 25 GB/s NIC per GPU: each GPU sends S/8 to each of the 4 GPUs of the other
  // node through its own NIC (4 flows sharing it) while its 3 intra-node flows finish earlier on the
  // 100 GB/s NVSwitch. The cross-node flows end at a_net + 4 (S/8) / 25 GB/s.
  const double nic_Bps = 25e9;
  const auto platform = testing::synthetic_platform(2, 4, kLinkBps, kHopLatency_s, nic_Bps);
  const auto topology = engine::build_topology(platform, 8);
  const double alpha_net_s = route_latency_s(topology, 0, 4);
  const double bytes = 512e6;
  const auto times = times_of(platform, NcclTestsCollective::AllToAll, CollectiveAlgorithm::Auto, 8, {bytes});
  CHECK(times[0] == Approx(alpha_net_s + 4 * (bytes / 8) / nic_Bps).epsilon(1e-6));
}

TEST_CASE("engine collective benchmark times each size from a common start", "[engine][collectives][benchmark]")
{
  // Sizes one after another, each timed alone: the ring all-reduce's closed form holds for every one,
  // whatever ran before it.
  const int p = 8;
  const auto platform = testing::synthetic_platform(1, p, kLinkBps, kHopLatency_s);
  const std::vector<double> sizes{64e6, 8e6, 1e9};
  const auto times = times_of(platform, NcclTestsCollective::AllReduce, CollectiveAlgorithm::Ring, p, sizes);
  for (std::size_t i = 0; i < sizes.size(); ++i)
    CHECK(times[i] == Approx(2.0 * (p - 1) * kAlpha_s + 2.0 * (p - 1) / p * sizes[i] / kLinkBps).epsilon(1e-6));
  const auto reduce_scatter = times_of(platform, NcclTestsCollective::ReduceScatter, CollectiveAlgorithm::RingFlow, p, sizes);
  for (std::size_t i = 0; i < sizes.size(); ++i)
    CHECK(reduce_scatter[i] == Approx((p - 1) * kAlpha_s + (p - 1.0) / p * sizes[i] / kLinkBps).epsilon(1e-6));
}

TEST_CASE("engine collective benchmark time never decreases with the size on the shipped platforms",
          "[engine][collectives][benchmark]")
{
  std::vector<double> sizes;
  for (double bytes = 8; bytes <= 4.0 * (1 << 30); bytes *= 8)
    sizes.push_back(bytes);
  struct Case {
    const char* platform;
    int gpus;
  };
  for (const Case& c : {Case{"platforms/dgx-h100-1node.yaml", 8}, Case{"platforms/dgx-a100-1node.yaml", 8},
                        Case{"platforms/dgx-h100-4node-rail.yaml", 32}, Case{"platforms/l40s-pcie-2node.yaml", 16},
                        Case{"platforms/mixed-a100-v100.yaml", 12}}) {
    const auto platform = config::read_platform(std::string(GPUSCALE_SOURCE_DIR) + "/" + c.platform);
    const int gpus = std::min(c.gpus, platform.gpu_count());
    for (auto op : {NcclTestsCollective::AllReduce, NcclTestsCollective::ReduceScatter, NcclTestsCollective::AllGather,
                    NcclTestsCollective::Broadcast, NcclTestsCollective::AllToAll})
      for (auto algorithm : {CollectiveAlgorithm::Auto, CollectiveAlgorithm::Ring, CollectiveAlgorithm::RingFlow,
                             CollectiveAlgorithm::Hierarchical, CollectiveAlgorithm::HalvingDoubling}) {
        if (engine::benchmark_algorithm_problem(op, algorithm))
          continue;
        const auto times = times_of(platform, op, algorithm, gpus, sizes);
        for (std::size_t i = 1; i < times.size(); ++i) {
          INFO(c.platform << ", " << gpus << " GPUs, " << model::to_string(op) << ", " << model::to_string(algorithm)
                          << ": " << sizes[i - 1] << " B then " << sizes[i] << " B");
          CHECK(times[i] >= times[i - 1] * (1 - 1e-12)); // equal up to the clock's rounding
        }
        CHECK(times.front() > 0);
      }
  }
}

TEST_CASE("engine collective benchmark refuses GPUs the platform lacks and algorithms an op cannot run",
          "[engine][collectives][benchmark]")
{
  const auto platform = testing::synthetic_platform(1, 4, kLinkBps, kHopLatency_s);
  CHECK_THROWS_WITH(times_of(platform, NcclTestsCollective::AllReduce, CollectiveAlgorithm::Ring, 5, {8}),
                    "collective benchmark: 5 GPUs asked, the platform has 4");
  CHECK_THROWS_WITH(times_of(platform, NcclTestsCollective::AllToAll, CollectiveAlgorithm::Ring, 4, {8}),
                    "alltoall runs point-to-point exchanges with every peer at once: auto, not ring");
  CHECK_THROWS_WITH(times_of(platform, NcclTestsCollective::Broadcast, CollectiveAlgorithm::Hierarchical, 4, {8}),
                    "broadcast runs a pipelined ring (auto, ring or ring_flow: the same model), not hierarchical");
  CHECK_FALSE(engine::benchmark_algorithm_problem(NcclTestsCollective::Broadcast, CollectiveAlgorithm::RingFlow));
  CHECK(engine::benchmark_size_problem(NcclTestsCollective::AllToAll, 513) ==
        "alltoall simulates every GPU pair's flow at once (p(p-1) flows and routes): at most 512 GPUs, got 513");
  CHECK_FALSE(engine::benchmark_size_problem(NcclTestsCollective::AllToAll, 512));
  CHECK_FALSE(engine::benchmark_size_problem(NcclTestsCollective::AllReduce, 8192));
}

TEST_CASE("engine no collective on a shipped platform sends faster than its GPUs' links run at line rate",
          "[engine][collectives][benchmark]")
{
  // With the committed link fractions and costs, every algorithm, operation and size: the busiest
  // rank's bytes on the wire (LL's flags included) never leave it faster than its links together at
  // their datasheet rates (scale-up links plus its path to a NIC), and never faster than each usable
  // fraction allows. A collective whose busbw beats line rate has moved bytes no link carried.
  const model::LinkFractions links = model::resolve_link_fractions(&config::default_calibration(), nullptr, model::Efficiency{});
  engine::BenchmarkNetwork network;
  network.links = links;
  const std::vector<double> sizes{1 << 20, 64 << 20, 1 << 30};
  namespace fs = std::filesystem;
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(std::string(GPUSCALE_SOURCE_DIR) + "/platforms")) {
    if (entry.path().extension() != ".yaml")
      continue;
    const auto platform = config::read_platform(entry.path().string());
    const auto& node = platform.node_type_of_group(0);
    const double egress_line_Bps = node.intra_bw_Bps + (node.nic_count > 0 ? node.pcie_bw_Bps : 0.0);
    for (int gpus : {node.gpus_per_node, 2 * node.gpus_per_node}) {
      if (gpus > platform.gpu_count() || gpus < 2)
        continue;
      for (auto op : {NcclTestsCollective::AllReduce, NcclTestsCollective::ReduceScatter, NcclTestsCollective::AllGather})
        for (auto algorithm : {CollectiveAlgorithm::Auto, CollectiveAlgorithm::Ring, CollectiveAlgorithm::RingFlow,
                               CollectiveAlgorithm::Hierarchical, CollectiveAlgorithm::HierarchicalFlow,
                               CollectiveAlgorithm::HalvingDoubling}) {
          engine::CollectiveBenchmarkSpec spec;
          spec.op = op;
          spec.algorithm = algorithm;
          spec.gpus = gpus;
          spec.sizes_bytes = sizes;
          for (const auto& row : engine::benchmark_collective(platform, spec, network)) {
            INFO(entry.path().filename().string() << ", " << gpus << " GPUs, " << model::to_string(op) << ", "
                                                  << model::to_string(algorithm) << " (" << row.algorithm << "), "
                                                  << row.bytes << " B");
            CHECK(row.max_rank_sent_bytes > 0);
            CHECK(row.max_rank_sent_bytes <= row.time_s * egress_line_Bps * (1 + 1e-9));
            ++checked;
          }
        }
    }
  }
  CHECK(checked > 300);
}
