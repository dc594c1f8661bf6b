// Per-GPU model-state memory against the ZeRO paper (Rajbhandari et al., SC'20, fig. 1):
// mixed-precision Adam, K = 12: 16Psi, 4Psi + 12Psi/N, 2Psi + 14Psi/N, 16Psi/N.

#include "sim/engine/MemoryModel.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

TEST_CASE("engine::estimate_memory model states follow the ZeRO paper's formulas per stage", "[engine][memory]")
{
  // 100 layers: stage 3 gathers one layer (and prefetches the next) at a time.
  const double psi = 1e9;
  const auto workload = testing::synthetic_workload(std::vector<double>(100, psi / 100), 1e9);
  auto scenario = testing::synthetic_scenario(testing::synthetic_platform(8, 8, 100e9, 1e-6), workload, 64, 1);
  const auto gpu = testing::synthetic_gpu();
  const double n = 64;
  const double expected[] = {16 * psi, 4 * psi + 12 * psi / n, 2 * psi + 14 * psi / n, 16 * psi / n};
  double previous = 1e300;
  for (int stage = 0; stage <= 3; ++stage) {
    scenario.scenario.zero_stage = stage;
    const auto m = engine::estimate_memory(workload, scenario.scenario, gpu, model::Precision::Bf16, 64);
    const double states = m.parameter_bytes + m.gradient_bytes + m.optimizer_bytes;
    INFO("stage " << stage);
    CHECK(states == Approx(expected[stage]).epsilon(1e-12));
    CHECK(m.total_bytes() <= previous);
    previous = m.total_bytes();
  }
}

TEST_CASE("engine::estimate_memory counts frozen weights without gradients or optimizer state", "[engine][memory]")
{
  auto workload = testing::synthetic_workload({1e6}, 1e9);
  workload.layers[0].frozen_params = 70e9;
  auto scenario = testing::synthetic_scenario(testing::synthetic_platform(1, 8, 100e9, 1e-6), workload, 8, 1);
  const auto gpu = testing::synthetic_gpu();
  const auto zero0 = engine::estimate_memory(workload, scenario.scenario, gpu, model::Precision::Bf16, 8);
  CHECK(zero0.frozen_bytes == 140e9);
  CHECK(zero0.gradient_bytes == 2e6);
  CHECK_FALSE(zero0.fits());
  scenario.scenario.zero_stage = 3;
  const auto zero3 = engine::estimate_memory(workload, scenario.scenario, gpu, model::Precision::Bf16, 8);
  CHECK(zero3.frozen_bytes == 140e9 / 8);
}
