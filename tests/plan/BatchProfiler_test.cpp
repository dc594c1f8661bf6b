#include "sim/plan/BatchProfiler.hpp"
#include "sim/run/ScenarioRunner.hpp"
#include "sim/engine/MemoryModel.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace gpuscale;

namespace {

/// 2 nodes x 4 GPUs of "test-gpu" then 2 nodes x 4 of "slow-gpu" (half the peak, `slow_memory_bytes`).
model::ResolvedScenario mixed_scenario(int global_batch, double slow_memory_bytes, int zero_stage)
{
  auto platform = testing::synthetic_platform(2, 4, 100e9, 1e-6);
  auto slow = testing::synthetic_gpu(50e12);
  slow.name = "slow-gpu";
  slow.memory_bytes = slow_memory_bytes;
  platform.gpu_types.emplace("slow-gpu", slow);
  auto node = platform.node_types.at("test-node");
  node.name = "slow-node";
  node.gpu_type = "slow-gpu";
  platform.node_types.emplace("slow-node", node);
  platform.node_groups.push_back({"slow-node", 2});
  auto resolved = testing::synthetic_scenario(platform, testing::synthetic_workload({50e6, 50e6, 50e6, 50e6}, 2e11),
                                              16, 1);
  resolved.scenario.global_batch_size = global_batch;
  resolved.scenario.zero_stage = zero_stage;
  return resolved;
}

} // namespace

TEST_CASE("plan::profile_gpu_types: half the peak takes twice the time and the largest micro-batch is the memory limit",
          "[app][planner]")
{
  const auto resolved = mixed_scenario(512, 6e9, 0);
  const auto profiles = plan::profile_gpu_types(resolved, 512);
  REQUIRE(profiles.size() == 2);
  const auto& fast = profiles[0];
  const auto& slow = profiles[1];
  CHECK(fast.name == "test-gpu");
  CHECK(fast.gpus == 8);
  CHECK(slow.gpus == 8);
  REQUIRE(slow.max_micro_batch >= 1);
  CHECK(slow.max_micro_batch < fast.max_micro_batch);
  // Linear layers only: FLOP-bound, so the slow type takes exactly twice as long per micro-batch.
  CHECK(slow.micro_batch_time_s[0] == Approx(2 * fast.micro_batch_time_s[0]).epsilon(1e-9));
  const auto& s = resolved.scenario;
  const auto& gpu = resolved.platform.gpu_types.at("slow-gpu");
  CHECK(engine::estimate_memory(resolved.workload, s, gpu, resolved.precision(), 16, slow.max_micro_batch).fits());
  CHECK_FALSE(engine::estimate_memory(resolved.workload, s, gpu, resolved.precision(), 16, slow.max_micro_batch + 1).fits());
}

TEST_CASE("app: a plan on a mixed cluster fits memory, keeps the batch, and simulates faster than uniform",
          "[app][planner]")
{
  for (int stage : {0, 2}) {
    const auto resolved = mixed_scenario(384, 80e9, stage);
    const auto profiles = plan::profile_gpu_types(resolved, 384);
    const auto plans = analysis::plan_batch(profiles, 384);
    REQUIRE_FALSE(plans.empty());
    const auto planned = plan::apply_plan(resolved, plans.front(), "/plan");
    const auto& s = planned.scenario;
    REQUIRE(s.batch_per_rank.size() == 16);
    int total = 0;
    for (int rank = 0; rank < 16; ++rank) {
      total += s.batch_of_rank(rank).samples();
      const bool slow = rank >= 8;
      // The fast half gets twice the samples of the slow half.
      CHECK(s.batch_of_rank(rank).micro_batch == (slow ? 16 : 32) / s.batch_of_rank(rank).accumulation);
    }
    CHECK(total == 384);
    const auto plan_outcome = run::run_scenario(planned, true);
    const auto uniform_outcome = run::run_scenario(plan::apply_plan(resolved, analysis::uniform_plan(profiles, 384), "/u"), true);
    REQUIRE(plan_outcome.iteration);
    REQUIRE(uniform_outcome.iteration);
    CHECK(plan_outcome.record.iter_time_s < uniform_outcome.record.iter_time_s);
  }
}

TEST_CASE("plan::restrict_to_types keeps only the named types' node groups", "[app][planner]")
{
  const auto resolved = mixed_scenario(512, 80e9, 1);
  const auto fast_only = plan::restrict_to_types(resolved, {"test-gpu"});
  CHECK(fast_only.scenario.gpus == 8);
  REQUIRE(fast_only.platform.node_groups.size() == 1);
  CHECK(fast_only.platform.node_groups[0].node_type == "test-node");
  const auto types = plan::gpu_types_of_run(fast_only);
  REQUIRE(types.size() == 1);
  CHECK(types[0] == std::pair<std::string, int>{"test-gpu", 8});
}

TEST_CASE("plan::restrict_to_types leaves each kept type at its own generation's calibrated efficiency",
          "[app][planner]")
{
  const std::string source = GPUSCALE_SOURCE_DIR;
  const auto path = std::filesystem::temp_directory_path() / "gpuscale-restrict-efficiency.yaml";
  std::ofstream(path) << "scenario:\n  name: restrict\n  platform: " << source << "/platforms/mixed-a100-v100.yaml\n"
                      << "  workload: " << source << "/workloads/resnet50.yaml\n  gpus: 64\n"
                      << "  global_batch_size: 2048\n  micro_batch_size: 32\n";
  const auto resolved = config::read_scenario(path.string());
  const model::Calibration& calibration = config::default_calibration();
  const auto& v100 = resolved.platform.gpu_types.at("v100-sxm2-16gb");
  const auto expect = calibration.efficiency_for(resolved.workload.benchmark, v100.generation, v100.generation_available_year);
  const auto v100_only = plan::restrict_to_types(resolved, {"v100-sxm2-16gb"});
  CHECK(v100_only.scenario.efficiency_for(v100).compute == expect.compute);
  CHECK(v100_only.scenario.efficiency_for(v100).memory == expect.memory);
  CHECK(v100_only.scenario.efficiency.compute == expect.compute); // what its row reports
  // The V100s profile the same in the mixed run and alone.
  const auto mixed = plan::profile_gpu_types(resolved, 64);
  const auto alone = plan::profile_gpu_types(v100_only, 64);
  REQUIRE(mixed.size() == 2);
  REQUIRE(alone.size() == 1);
  CHECK(alone[0].micro_batch_time_s == mixed[1].micro_batch_time_s);
  CHECK(alone[0].step_fixed_s == mixed[1].step_fixed_s);
}
