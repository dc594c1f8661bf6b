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

TEST_CASE("engine::estimate_memory stores frozen weights in the GEMM format under FP8 and FP4, trainable ones in bf16",
          "[engine][memory]")
{
  auto workload = testing::synthetic_workload({1e6}, 1e9);
  workload.layers[0].frozen_params = 70e9;
  const auto scenario = testing::synthetic_scenario(testing::synthetic_platform(1, 8, 100e9, 1e-6), workload, 8, 1);
  const auto gpu = testing::synthetic_gpu();
  const auto bf16 = engine::estimate_memory(workload, scenario.scenario, gpu, model::Precision::Bf16, 8);
  const auto fp8 = engine::estimate_memory(workload, scenario.scenario, gpu, model::Precision::Fp8, 8);
  const auto nvfp4 = engine::estimate_memory(workload, scenario.scenario, gpu, model::Precision::Nvfp4, 8);
  const auto mxfp4 = engine::estimate_memory(workload, scenario.scenario, gpu, model::Precision::Mxfp4, 8);
  CHECK(fp8.frozen_bytes == 70e9);                              // 1 byte each (NeMo's fp8_params)
  CHECK(nvfp4.frozen_bytes == Approx(70e9 * (0.5 + 1.0 / 16))); // E2M1 + one E4M3 scale per 16
  CHECK(mxfp4.frozen_bytes == Approx(70e9 * (0.5 + 1.0 / 32))); // E2M1 + one E8M0 scale per 32
  // The trainable weights, their gradients and the optimizer's master copy are as in bf16.
  CHECK(fp8.parameter_bytes == bf16.parameter_bytes);
  CHECK(fp8.gradient_bytes == bf16.gradient_bytes);
  CHECK(fp8.optimizer_bytes == bf16.optimizer_bytes);
  CHECK(fp8.total_bytes() == Approx(bf16.total_bytes() - 70e9));
}
