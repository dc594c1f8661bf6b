// One step program, two executors: SimGrid against the analytical α–β executor. Where no two
// transfers share a link at once they agree to 1e-6; a hand-derived closed form checks both; under
// contention the test states where they differ and by how much.

#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace gpuscale;
using model::CollectiveAlgorithm;
using model::StepExecutorKind;

namespace {

struct BothExecutors {
  engine::IterationResult simgrid;
  engine::IterationResult analytical;
};

BothExecutors run_both(const model::ResolvedScenario& scenario)
{
  return {engine::simulate_iteration_isolated(scenario, StepExecutorKind::Simgrid),
          engine::simulate_iteration_isolated(scenario, StepExecutorKind::Analytical)};
}

void check_agree(const BothExecutors& both)
{
  const auto& s = both.simgrid;
  const auto& a = both.analytical;
  CHECK(a.iteration_time_s == Approx(s.iteration_time_s).epsilon(1e-6));
  CHECK(a.compute_time_s == Approx(s.compute_time_s).epsilon(1e-6));
  CHECK(a.comm_time_s == Approx(s.comm_time_s).epsilon(1e-6));
  CHECK(a.exposed_comm_s == Approx(s.exposed_comm_s).epsilon(1e-6).margin(1e-12));
  CHECK(a.bytes_sent_per_gpu == s.bytes_sent_per_gpu);
  CHECK(a.dp_bytes_sent_per_gpu == s.dp_bytes_sent_per_gpu);
  CHECK(a.collective_used == s.collective_used);
}

/// `nodes` x `per_node` GPUs, one NIC per GPU on a single switch: every ring link carries one flow.
model::ResolvedScenario uncontended(int nodes, int per_node, int stage, CollectiveAlgorithm collective,
                                    int accumulation = 1, double flop_per_sample = 2e9)
{
  // 12 layers of 5M parameters (120 MB of bf16 gradients, several 25 MB buckets).
  const auto workload = testing::synthetic_workload(std::vector<double>(12, 5e6), flop_per_sample);
  const int gpus = nodes * per_node;
  auto s = testing::synthetic_scenario(testing::synthetic_platform(nodes, per_node, 200e9, 1e-6), workload, gpus, 4,
                                       accumulation);
  s.scenario.zero_stage = stage;
  s.scenario.collective = collective;
  return s;
}

} // namespace

TEST_CASE("engine executors agree to 1e-6 on one NVSwitch node for ZeRO 0-2 and every algorithm", "[engine][executors]")
{
  for (auto collective : {CollectiveAlgorithm::Ring, CollectiveAlgorithm::RingFlow, CollectiveAlgorithm::HalvingDoubling,
                          CollectiveAlgorithm::Auto})
    for (int stage = 0; stage <= 2; ++stage) {
      INFO(model::to_string(collective) << ", ZeRO-" << stage);
      check_agree(run_both(uncontended(1, 8, stage, collective, stage == 2 ? 2 : 1)));
    }
}

TEST_CASE("engine executors agree to 1e-6 across nodes with one NIC per GPU", "[engine][executors]")
{
  for (auto collective : {CollectiveAlgorithm::Ring, CollectiveAlgorithm::RingFlow, CollectiveAlgorithm::Hierarchical,
                          CollectiveAlgorithm::HierarchicalFlow, CollectiveAlgorithm::Auto})
    for (int stage : {0, 2}) {
      INFO(model::to_string(collective) << ", ZeRO-" << stage);
      check_agree(run_both(uncontended(4, 4, stage, collective)));
    }
  // Three nodes: not a power of two, and ranks whose routes differ in length (two hops inside a
  // node, six across): ranks are not in lockstep, which the analytical executor follows exactly.
  check_agree(run_both(uncontended(3, 2, 1, CollectiveAlgorithm::Ring)));
}

TEST_CASE("engine executors agree when GPUs of two speeds reach each collective at different times",
          "[engine][executors]")
{
  // 2 nodes of the test GPU, then 2 of one at half its peak: the fast ranks wait at every bucket,
  // and the rendezvous of each transfer (start when sender and receiver are both there) decides.
  auto s = uncontended(2, 4, 0, CollectiveAlgorithm::Ring);
  testing::add_slow_nodes(s.platform, 2, 50e12);
  s.scenario.gpus = 16;
  s.scenario.global_batch_size = 4 * 16;
  for (auto collective : {CollectiveAlgorithm::Ring, CollectiveAlgorithm::RingFlow, CollectiveAlgorithm::Hierarchical,
                          CollectiveAlgorithm::HierarchicalFlow, CollectiveAlgorithm::HalvingDoubling})
    for (int stage : {0, 1}) {
      s.scenario.collective = collective;
      s.scenario.zero_stage = stage;
      INFO(model::to_string(collective) << ", ZeRO-" << stage);
      check_agree(run_both(s));
    }
}

TEST_CASE("engine executors agree where the TCP window caps each flow at gamma / (2 alpha)", "[engine][executors]")
{
  // 64 KiB over a 2 us route: 16.4 GB/s per flow, below the 200 GB/s links; across nodes 4.5 us.
  for (int nodes : {1, 2}) {
    auto s = uncontended(nodes, 4, 0, CollectiveAlgorithm::Ring);
    s.scenario.simgrid.tcp_gamma_bytes = 64 * 1024;
    INFO(nodes << " node(s)");
    check_agree(run_both(s));
  }
}

TEST_CASE("engine both executors equal the hand-derived DDP step: kernels + 2(p-1)a + 2(p-1)/p S/B + optimizer",
          "[engine][executors]")
{
  // One layer, one bucket: its all-reduce starts after the whole backward and nothing overlaps it.
  const double params = 50e6;
  const double flop_per_sample = 3e9;
  const int p = 8;
  const int micro = 4;
  const auto workload = testing::synthetic_workload({params}, flop_per_sample);
  auto s = testing::synthetic_scenario(testing::synthetic_platform(1, p, 200e9, 1e-6), workload, p, micro);
  s.scenario.bucket_bytes = 1e9;
  const auto& gpu = s.platform.gpu_types.at("test-gpu");
  const double kernels_s = micro * 3 * flop_per_sample / (gpu.peak_flop_per_s.at(model::Precision::Bf16) * 0.5);
  const double bytes = 2 * params; // bf16 gradients
  const double alpha = 2 * 1e-6;   // GPU -> NVSwitch -> GPU
  const double all_reduce_s = 2.0 * (p - 1) * alpha + 2.0 * (p - 1) / p * bytes / 200e9;
  const double optimizer_s = params *
                             engine::optimizer_traffic_bytes_per_param(model::Optimizer::Adam, model::Precision::Bf16) /
                             (gpu.memory_bw_Bps * s.scenario.efficiency.memory);
  const auto both = run_both(s);
  CHECK(both.simgrid.iteration_time_s == Approx(kernels_s + all_reduce_s + optimizer_s).epsilon(1e-6));
  CHECK(both.analytical.iteration_time_s == Approx(kernels_s + all_reduce_s + optimizer_s).epsilon(1e-6));
  CHECK(both.analytical.comm_time_s == Approx(all_reduce_s).epsilon(1e-6));
  CHECK(both.analytical.exposed_comm_s == Approx(all_reduce_s).epsilon(1e-6));
}

TEST_CASE("engine executors under contention: eight rails through one NIC share it alike in both executors",
          "[engine][executors]")
{
  // 2 nodes x 8 GPUs with a single NIC each: the hierarchical all-reduce's cross phase runs eight
  // rings at once through that NIC. SimGrid shares it (max-min: B/8 per ring), and so does the
  // analytical executor among one collective's own transfers: both equal each ring alone on B/8.
  for (auto collective : {CollectiveAlgorithm::Hierarchical, CollectiveAlgorithm::HierarchicalFlow}) {
    INFO(model::to_string(collective));
    auto shared = uncontended(2, 8, 0, collective);
    shared.platform.node_types.at("test-node").nic_count = 1;
    const auto own_nics = run_both(uncontended(2, 8, 0, collective));
    const auto both = run_both(shared);
    INFO("SimGrid " << both.simgrid.iteration_time_s << " s, analytical " << both.analytical.iteration_time_s
                    << " s, with a NIC per GPU " << own_nics.simgrid.iteration_time_s << " s");
    CHECK(both.analytical.iteration_time_s == Approx(both.simgrid.iteration_time_s).epsilon(1e-6));
    CHECK(both.simgrid.iteration_time_s > 1.2 * own_nics.simgrid.iteration_time_s);
  }
}

TEST_CASE("engine executors under contention: a 2:1 fat tree and ZeRO-3's overlapping streams", "[engine][executors]")
{
  SECTION("halving-doubling across the leaves of a 2:1 oversubscribed fat tree")
  {
    // 8 nodes x 4 GPUs, 2 nodes (8 NICs of B) per leaf, each leaf's uplink 8B/2. Rabenseifner's
    // steps at distance 8 and 16 cross leaves: all 8 GPUs of a leaf send through the uplink at once,
    // so SimGrid gives each B/2 where the analytical executor gives B. Those steps move S/2 + S/4
    // each way (halving and doubling), so with the one all-reduce exposed SimGrid is slower by
    // exactly 1.5 S / B.
    const double params = 50e6;
    const double bytes = 2 * params;
    const double nic_Bps = 25e9;
    auto s = testing::synthetic_scenario(testing::synthetic_platform(8, 4, 200e9, 1e-6, nic_Bps,
                                                                     model::FabricTopology::FatTree),
                                         testing::synthetic_workload({params}, 2e7), 32, 4);
    s.platform.fabric.oversubscription = 2.0;
    s.scenario.collective = CollectiveAlgorithm::HalvingDoubling;
    s.scenario.bucket_bytes = 1e9;
    const auto both = run_both(s);
    INFO("SimGrid " << both.simgrid.iteration_time_s << " s, analytical " << both.analytical.iteration_time_s << " s");
    CHECK(both.simgrid.iteration_time_s - both.analytical.iteration_time_s ==
          Approx(1.5 * bytes / nic_Bps).epsilon(1e-6));
    CHECK(both.analytical.compute_time_s == Approx(both.simgrid.compute_time_s).epsilon(1e-9));
  }
  SECTION("ZeRO-3: parameter prefetch shares the GPU links with gradient reduce-scatters")
  {
    auto s = uncontended(1, 8, 3, CollectiveAlgorithm::Ring, 1, 2e7);
    s.scenario.zero3_prefetch_params = 10e6; // gather two layers at a time, the next while one computes
    const auto both = run_both(s);
    const double gap = both.simgrid.iteration_time_s / both.analytical.iteration_time_s - 1;
    INFO("SimGrid " << both.simgrid.iteration_time_s << " s, analytical " << both.analytical.iteration_time_s
                    << " s: SimGrid " << 100 * gap << " % slower");
    CHECK(gap > 0.10); // measured: 19.7 % (compute kept small so the communication is exposed)
    CHECK(both.analytical.dp_bytes_sent_per_gpu == both.simgrid.dp_bytes_sent_per_gpu);
  }
}

TEST_CASE("engine analytical executor runs many times in one process and is deterministic", "[engine][executors]")
{
  const auto s = uncontended(4, 4, 2, CollectiveAlgorithm::Auto, 2);
  const auto first = engine::simulate_iteration(s, StepExecutorKind::Analytical);
  for (int i = 0; i < 3; ++i)
    CHECK(engine::simulate_iteration(s, StepExecutorKind::Analytical).iteration_time_s == first.iteration_time_s);
}

TEST_CASE("engine analytical executor refuses network models other than CM02", "[engine][executors]")
{
  auto s = uncontended(1, 2, 0, CollectiveAlgorithm::Ring);
  s.scenario.simgrid.network_model = "LV08";
  CHECK_THROWS_WITH(engine::simulate_iteration(s, StepExecutorKind::Analytical),
                    "the analytical executor models SimGrid's CM02 network model only (scenario has 'LV08')");
}
