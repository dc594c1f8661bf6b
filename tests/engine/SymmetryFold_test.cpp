// The symmetry fold (engine/SymmetryFold.hpp): a step whose nodes a shift maps onto themselves
// simulated on one block of nodes equals the simulation of every GPU to 1e-9 (step time and the
// per-GPU figures), on shipped platforms (non-blocking fat tree, rail-optimised, 2:1 oversubscribed
// tree across full leaves) and synthetic ones (contended uplinks, tensor parallelism), with and
// without the steady-state extension; and the fold is refused wherever the shift is not a symmetry.

#include "sim/config/ScenarioReader.hpp"
#include "sim/engine/IterationSimulator.hpp"
#include "tests/support/SyntheticPlatforms.hpp"
#include "tests/support/SameResult.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

using namespace gpuscale;
using model::CollectiveAlgorithm;

namespace {

const std::string kSource = GPUSCALE_SOURCE_DIR;

/// A shipped platform and workload at `gpus` GPUs, `per_gpu` samples each.
model::ResolvedScenario shipped(const std::string& platform, const std::string& workload, int gpus, int per_gpu,
                                const std::string& extra)
{
  const auto path = std::filesystem::temp_directory_path() /
                    ("gpuscale-symmetry-" + platform + "-" + workload + "-" + std::to_string(gpus) + ".yaml");
  std::ofstream(path) << "scenario:\n  name: symmetry\n  platform: " << kSource << "/platforms/" << platform
                      << "\n  workload: " << kSource << "/workloads/" << workload << "\n  gpus: " << gpus
                      << "\n  global_batch_size: " << per_gpu * gpus << "\n  micro_batch_size: " << per_gpu << "\n"
                      << extra;
  return config::read_scenario(path.string());
}

const std::string kZero3 = "  zero_stage: 3\n  activation_checkpointing: true\n  collective: auto\n";
const std::string kDdp = "  zero_stage: 0\n  collective: auto\n";

/// The same step (testing::check_same_result) simulated the same way (the steady-state extension's record).
void check_same(const engine::IterationResult& a, const engine::IterationResult& b, double relative)
{
  testing::check_same_result(a, b, relative);
  CHECK(a.step_simulation == b.step_simulation);
}

struct FoldedAndFull {
  engine::IterationResult folded;
  engine::IterationResult full;
};

/// The scenario with the fold allowed and with every GPU simulated, each in its own process.
FoldedAndFull run_both_ways(model::ResolvedScenario s)
{
  FoldedAndFull out;
  s.scenario.fold_symmetric_ranks = true;
  out.folded = engine::simulate_iteration_isolated(s);
  s.scenario.fold_symmetric_ranks = false;
  out.full = engine::simulate_iteration_isolated(s);
  return out;
}

/// Folded (the copies `expected` describes) and equal to the full simulation to 1e-9.
void check_folded_equals_full(const model::ResolvedScenario& s, const std::string& expected)
{
  const auto both = run_both_ways(s);
  INFO(both.folded.symmetry);
  CHECK(both.folded.symmetry == expected);
  CHECK(both.full.symmetry == "not folded: symmetry: simulate");
  check_same(both.folded, both.full, 1e-9);
}

/// Not folded, for a reason starting with `reason`.
void check_refused(const model::ResolvedScenario& s, const std::string& reason)
{
  const auto result = engine::simulate_iteration_isolated(s);
  INFO(result.symmetry);
  CHECK(result.symmetry.rfind("not folded: " + reason, 0) == 0);
}

} // namespace

TEST_CASE("engine symmetry fold: Llama 2 ZeRO-3 on the non-blocking fat tree equals the full simulation",
          "[engine][symmetry]")
{
  // One leaf of 32 nodes: the shift of 2 nodes keeps every route (NIC - leaf - NIC) in its orbit.
  check_folded_equals_full(shipped("dgx-h100-512node-fattree.yaml", "llama2-70b-lora.yaml", 16, 1, kZero3),
                           "not folded: the shift does not map the gradient groups onto themselves (shift of 1 node(s))");
  check_folded_equals_full(shipped("dgx-h100-512node-fattree.yaml", "llama2-70b-lora.yaml", 32, 1, kZero3),
                           "folded: 2 copies of 16 GPUs");
  check_folded_equals_full(shipped("dgx-h100-512node-fattree.yaml", "llama2-70b-lora.yaml", 64, 1, kZero3),
                           "folded: 4 copies of 16 GPUs");
}

TEST_CASE("engine symmetry fold: DDP on a rail-optimised fabric and a fat tree equals the full simulation",
          "[engine][symmetry]")
{
  check_folded_equals_full(shipped("dgx-h100-4node-rail.yaml", "resnet50.yaml", 32, 16, kDdp),
                           "folded: 2 copies of 16 GPUs");
  // SimGrid's LV08 model: its latency and bandwidth factors and weight-S are per flow, alike in both.
  check_folded_equals_full(
      shipped("dgx-h100-4node-rail.yaml", "resnet50.yaml", 32, 16, kDdp + "  simgrid: {network_model: LV08}\n"),
      "folded: 2 copies of 16 GPUs");
  check_folded_equals_full(shipped("dgx-h100-512node-fattree.yaml", "resnet50.yaml", 64, 16, kDdp),
                           "folded: 4 copies of 16 GPUs");
  check_folded_equals_full(shipped("dgx-h100-512node-fattree.yaml", "bert-large.yaml", 32, 8,
                                   "  zero_stage: 1\n  collective: auto\n"),
                           "folded: 2 copies of 16 GPUs");
}

TEST_CASE("engine symmetry fold: the 2:1 oversubscribed tree folds by whole leaves and equals the full simulation",
          "[engine][symmetry]")
{
  SECTION("the shipped 2:1 tree: 8 nodes in one leaf (the 64-GPU bench point), 32 nodes over two full leaves")
  {
    check_folded_equals_full(shipped("dgx-h100-128node-fattree-2to1.yaml", "llama2-70b-lora.yaml", 64, 1, kZero3),
                             "folded: 4 copies of 16 GPUs");
    check_folded_equals_full(shipped("dgx-h100-128node-fattree-2to1.yaml", "resnet50.yaml", 256, 16, kDdp),
                             "folded: 2 copies of 128 GPUs");
  }
  SECTION("ZeRO-3 over 4 leaves of 2 nodes: every ring crosses the oversubscribed uplinks, which contend at 4:1")
  {
    // A leaf's uplink carries one flow per rail out of the leaf (4 x 25 GB/s): at 2:1 (100 GB/s)
    // exactly its capacity, at 4:1 (50 GB/s) twice it.
    const auto workload = testing::synthetic_workload(std::vector<double>(32, 4e6), 1e10);
    auto s = testing::synthetic_scenario(
        testing::synthetic_platform(8, 4, 200e9, 1e-6, 25e9, model::FabricTopology::FatTree), workload, 32, 1);
    s.scenario.zero_stage = 3;
    s.scenario.zero3_prefetch_params = 2e6;
    for (const double oversubscription : {2.0, 4.0})
      for (const auto algorithm : {CollectiveAlgorithm::Ring, CollectiveAlgorithm::Auto}) {
        s.platform.fabric.oversubscription = oversubscription;
        s.scenario.collective = algorithm;
        check_folded_equals_full(s, "folded: 4 copies of 8 GPUs");
      }
    // The contention is real: at 4:1 the step waits for the uplinks.
    const double contended_s = engine::simulate_iteration_isolated(s).iteration_time_s;
    s.platform.fabric.oversubscription = 1.0;
    CHECK(engine::simulate_iteration_isolated(s).iteration_time_s < 0.99 * contended_s);
  }
}

TEST_CASE("engine symmetry fold composes with the steady-state extension and with tensor parallelism",
          "[engine][symmetry]")
{
  SECTION("folded and extended against every GPU and every unit simulated")
  {
    auto s = shipped("dgx-h100-128node-fattree-2to1.yaml", "llama2-70b-lora.yaml", 32, 1, kZero3);
    s.scenario.fold_symmetric_ranks = true;
    s.scenario.extend_steady_state = true;
    const auto fast = engine::simulate_iteration_isolated(s);
    s.scenario.fold_symmetric_ranks = false;
    s.scenario.extend_steady_state = false;
    const auto slow = engine::simulate_iteration_isolated(s);
    CHECK(fast.symmetry == "folded: 2 copies of 16 GPUs");
    CHECK(fast.step_simulation.rfind("steady state:", 0) == 0);
    CHECK(fast.iteration_time_s == Approx(slow.iteration_time_s).epsilon(1e-9));
    CHECK(fast.bytes_sent_per_gpu == Approx(slow.bytes_sent_per_gpu).epsilon(1e-9));
    CHECK(fast.exposed_comm_s == Approx(slow.exposed_comm_s).epsilon(1e-9).margin(1e-15));
  }
  SECTION("tensor parallelism inside each node: TP groups map onto TP groups, member by member (their "
          "all-reduces run halving-doubling inside the node)")
  {
    auto workload = testing::synthetic_workload(std::vector<double>(24, 4e6), 2e10);
    for (auto& layer : workload.layers) {
      layer.tensor_parallel = model::TensorParallelMode::Row;
      layer.tp_comm_bytes_per_sample = 4e6;
    }
    auto s = testing::synthetic_scenario(testing::synthetic_platform(4, 4, 200e9, 1e-6), workload, 16, 2, 2);
    s.scenario.tensor_parallel = 4;
    // Data-parallel rings across the nodes (auto would take halving-doubling there: refused).
    s.scenario.collective = CollectiveAlgorithm::RingFlow;
    check_folded_equals_full(s, "folded: 2 copies of 8 GPUs");
  }
}

TEST_CASE("engine symmetry fold is refused where the shift is not a symmetry of the step", "[engine][symmetry]")
{
  SECTION("the shipped 2:1 tree with a partial leaf (24 nodes, 16 per leaf): no shift maps leaves onto leaves")
  {
    check_refused(shipped("dgx-h100-128node-fattree-2to1.yaml", "resnet50.yaml", 192, 16, kDdp),
                  "the shift splits a leaf's nodes over several leaves (shift of 12 node(s))");
  }
  SECTION("a synthetic 2:1 tree of 3 nodes, 2 per leaf")
  {
    const auto workload = testing::synthetic_workload(std::vector<double>(8, 4e6), 1e10);
    auto s = testing::synthetic_scenario(
        testing::synthetic_platform(3, 4, 200e9, 1e-6, 25e9, model::FabricTopology::FatTree), workload, 12, 1);
    s.platform.fabric.oversubscription = 2.0;
    check_refused(s, "the shift splits a leaf's nodes over several leaves (shift of 1 node(s))");
  }
  SECTION("GPUs of two speeds")
  {
    const auto workload = testing::synthetic_workload(std::vector<double>(8, 2e6), 2e10);
    auto s = testing::synthetic_scenario(testing::synthetic_platform(2, 4, 200e9, 1e-6), workload, 16, 2);
    testing::add_slow_nodes(s.platform, 2, 50e12);
    check_refused(s, "GPUs run different programs or at different speeds (shift of 2 node(s))");
  }
  SECTION("uneven batch shares: GPUs run different programs")
  {
    const auto workload = testing::synthetic_workload(std::vector<double>(8, 2e6), 2e10);
    auto s = testing::synthetic_scenario(testing::synthetic_platform(4, 4, 200e9, 1e-6), workload, 16, 2);
    for (int rank = 0; rank < 16; ++rank)
      s.scenario.batch_per_rank.push_back({2, rank < 4 ? 3 : 1});
    s.scenario.global_batch_size = 4 * 2 * 3 + 12 * 2 * 1;
    check_refused(s, "GPUs run different programs or at different speeds (shift of 2 node(s))");
  }
  SECTION("PCIe nodes with two NICs: a route across nodes is one of several equally short ones")
  {
    const auto workload = testing::synthetic_workload(std::vector<double>(8, 4e6), 1e10);
    auto s = testing::synthetic_scenario(testing::synthetic_platform(4, 4, 32e9, 1e-6), workload, 16, 1);
    auto& node = s.platform.node_types.at("test-node");
    node.fabric = model::IntraNodeFabric::Pcie;
    node.nic_count = 2;
    check_refused(s, "a route was chosen among equally short ones (shift of 2 node(s))");
  }
  SECTION("a partial node, one node, halving-doubling, symmetry: simulate, SimGrid's cross-traffic")
  {
    check_refused(shipped("dgx-h100-512node-fattree.yaml", "resnet50.yaml", 12, 16, kDdp), "partial or unequal nodes");
    check_refused(shipped("dgx-h100-512node-fattree.yaml", "resnet50.yaml", 8, 16, kDdp), "one node");
    check_refused(shipped("dgx-h100-512node-fattree.yaml", "resnet50.yaml", 32, 16,
                          "  zero_stage: 0\n  collective: halving_doubling\n"),
                  "a collective runs halving-doubling across nodes");
    check_refused(shipped("dgx-h100-512node-fattree.yaml", "resnet50.yaml", 32, 16, kDdp + "  symmetry: simulate\n"),
                  "symmetry: simulate");
    check_refused(shipped("dgx-h100-512node-fattree.yaml", "resnet50.yaml", 32, 16,
                          kDdp + "  simgrid: {network_model: LV08, crosstraffic: true}\n"),
                  "SimGrid cross-traffic");
  }
}
