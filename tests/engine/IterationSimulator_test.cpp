// Whole-iteration properties: compute-only closed form, bucketing overlap, monotonicity in bandwidth,
// determinism.

#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace gpuscale;

TEST_CASE("engine::simulate_iteration on one GPU equals FLOPs / (peak x efficiency) plus the optimizer step",
          "[engine][iteration]")
{
  const auto workload = testing::synthetic_workload({1e6, 2e6, 3e6}, 5e9);
  auto scenario = testing::synthetic_scenario(testing::synthetic_platform(1, 1, 100e9, 1e-6), workload, 1, 16, 3);
  const auto result = engine::simulate_iteration_isolated(scenario);

  const auto& gpu = scenario.platform.gpu_types.at("test-gpu");
  const double flop = 3 /*micro-batches*/ * 16 * (workload.forward_flop_per_sample() + workload.backward_flop_per_sample());
  const double compute_s = flop / (gpu.peak_flop_per_s.at(model::Precision::Bf16) * 0.5);
  const double optimizer_s = workload.trainable_params() *
                             engine::optimizer_traffic_bytes_per_param(model::Optimizer::Adam, model::Precision::Bf16) /
                             (gpu.memory_bw_Bps * scenario.scenario.efficiency.memory);
  CHECK(result.iteration_time_s == Approx(compute_s + optimizer_s).epsilon(1e-9));
  CHECK(result.compute_time_s == Approx(compute_s + optimizer_s).epsilon(1e-9));
  CHECK(result.comm_time_s == 0.0);
  CHECK(result.samples_per_s == Approx(48 / (compute_s + optimizer_s)).epsilon(1e-9));
}

TEST_CASE("engine::build_step_program (ZeRO-0) cuts backward at bucket boundaries in reverse layer order",
          "[engine][iteration]")
{
  // bf16 gradients: 2 bytes per parameter. Layers of 10, 20, 30 M params = 20, 40, 60 MB of gradients.
  const auto workload = testing::synthetic_workload({10e6, 20e6, 30e6}, 1e9);
  auto scenario = testing::synthetic_scenario(testing::synthetic_platform(1, 2, 100e9, 1e-6), workload, 2, 4);
  scenario.scenario.bucket_bytes = 50e6;
  const auto program = engine::build_step_program(workload, scenario.scenario,
                                                   scenario.platform.gpu_types.at("test-gpu"), model::Precision::Bf16);
  std::vector<double> buckets;
  std::vector<double> compute_before_bucket;
  double compute = 0;
  for (const auto& instruction : program.instructions) {
    if (instruction.kind == engine::Instruction::Kind::Compute)
      compute += instruction.amount;
    if (instruction.kind == engine::Instruction::Kind::Submit) {
      CHECK(instruction.op == engine::CollectiveOp::AllReduce);
      buckets.push_back(instruction.amount);
      compute_before_bucket.push_back(compute);
    }
  }
  CHECK(buckets == std::vector<double>{60e6, 60e6}); // layer2 alone fills a bucket; layer1 + layer0 the next
  const double forward = 4 * 3 * 1e9;
  CHECK(compute_before_bucket[0] == Approx(forward + 4 * 2e9)); // after layer2's backward only
  CHECK(program.compute_flop == Approx(forward + 4 * 3 * 2e9));
}

TEST_CASE("engine DDP overlaps bucket all-reduces with the rest of backward", "[engine][iteration]")
{
  // Many buckets: all but the last overlap backward compute, so exposed communication is well below
  // the total communication time.
  const auto workload = testing::synthetic_workload(std::vector<double>(20, 10e6), 20e9);
  auto scenario = testing::synthetic_scenario(testing::synthetic_platform(1, 8, 100e9, 1e-6), workload, 8, 8);
  scenario.scenario.bucket_bytes = 20e6;
  const auto result = engine::simulate_iteration_isolated(scenario);
  CHECK(result.comm_time_s > 0);
  CHECK(result.exposed_comm_s < 0.5 * result.comm_time_s);
  CHECK(result.iteration_time_s < result.compute_time_s + result.comm_time_s);
  CHECK(result.iteration_time_s == Approx(result.compute_time_s + result.exposed_comm_s).epsilon(1e-9));
  // DDP moves 2(p-1)/p of the gradient bytes per GPU (ZeRO paper: 2 Psi in total per step).
  CHECK(result.bytes_sent_per_gpu == Approx(2.0 * 7 / 8 * 200e6 * 2).epsilon(1e-6));
  CHECK(result.dp_bytes_sent_per_gpu == result.bytes_sent_per_gpu);
}

TEST_CASE("engine: more bandwidth never makes an iteration slower (generated configurations)", "[engine][iteration][property]")
{
  std::mt19937 random(20261129);
  std::uniform_int_distribution<int> layers(1, 12);
  std::uniform_real_distribution<double> params(1e5, 5e7);
  std::uniform_real_distribution<double> bandwidth(5e9, 500e9);
  std::uniform_int_distribution<int> nodes(1, 3);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<double> layer_params(static_cast<std::size_t>(layers(random)));
    for (auto& p : layer_params)
      p = params(random);
    const auto workload = testing::synthetic_workload(layer_params, 2e9);
    const int node_count = nodes(random);
    const double intra = bandwidth(random);
    const double nic = bandwidth(random) / 10;
    const int gpus = node_count * 4;
    auto base = testing::synthetic_scenario(testing::synthetic_platform(node_count, 4, intra, 1e-6, nic), workload, gpus, 4);
    auto faster = testing::synthetic_scenario(testing::synthetic_platform(node_count, 4, 2 * intra, 1e-6, 2 * nic),
                                              workload, gpus, 4);
    base.scenario.collective = faster.scenario.collective =
        trial % 2 == 0 ? model::CollectiveAlgorithm::Ring : model::CollectiveAlgorithm::RingFlow;
    const double t_base = engine::simulate_iteration_isolated(base).iteration_time_s;
    const double t_fast = engine::simulate_iteration_isolated(faster).iteration_time_s;
    INFO("trial " << trial << ": " << t_base << " s vs " << t_fast << " s with twice the bandwidth");
    CHECK(t_fast <= t_base * (1 + 1e-12));
  }
}

TEST_CASE("engine: the same inputs give identical results", "[engine][iteration][property]")
{
  const auto workload = testing::synthetic_workload({3e6, 7e6, 11e6, 13e6}, 3e9);
  const auto scenario = testing::synthetic_scenario(testing::synthetic_platform(2, 4, 150e9, 1e-6), workload, 8, 4);
  const auto a = engine::simulate_iteration_isolated(scenario);
  const auto b = engine::simulate_iteration_isolated(scenario);
  CHECK(a.iteration_time_s == b.iteration_time_s);
  CHECK(a.comm_time_s == b.comm_time_s);
  CHECK(a.exposed_comm_s == b.exposed_comm_s);
  CHECK(a.bytes_sent_per_gpu == b.bytes_sent_per_gpu);
}

TEST_CASE("engine: a calibrated step overhead adds to the step and nothing else", "[engine][iteration]")
{
  const auto workload = testing::synthetic_workload(std::vector<double>(20, 10e6), 20e9);
  auto scenario = testing::synthetic_scenario(testing::synthetic_platform(1, 8, 100e9, 1e-6), workload, 8, 8);
  const auto without = engine::simulate_iteration_isolated(scenario);
  scenario.scenario.efficiency.step_overhead_s = 0.25;
  const auto with = engine::simulate_iteration_isolated(scenario);
  CHECK(with.iteration_time_s == Approx(without.iteration_time_s + 0.25).epsilon(1e-12));
  CHECK(with.compute_time_s == without.compute_time_s);
  CHECK(with.comm_time_s == without.comm_time_s);
  CHECK(with.exposed_comm_s == without.exposed_comm_s);
  CHECK(with.samples_per_s == Approx(8 * 8 / with.iteration_time_s));
}
