#include "sim/config/KernelTimingReader.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/engine/KernelTimingModel.hpp"
#include "sim/model/Roofline.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

const model::GpuType& h200()
{
  static const model::Platform catalog =
      config::read_platform(std::string(GPUSCALE_SOURCE_DIR) + "/calibration/catalog.yaml");
  return catalog.gpu_types.at("h200-sxm-141gb");
}

model::KernelTiming timed(model::Kernel kernel, model::KernelPass pass, int micro_batch, model::Precision precision)
{
  model::KernelTiming t;
  t.kernel = kernel;
  t.pass = pass;
  t.micro_batch = micro_batch;
  t.precision = precision;
  t.graph_s = 1e-3;
  return t;
}

} // namespace

TEST_CASE("engine::model_timed_kernel prices a timed GEMM as the simulator does: tile waves at the calibrated peak",
          "[engine][kernel-timing]")
{
  const model::GpuType& gpu = h200();
  REQUIRE(gpu.compute_units == 132);
  const double peak = *gpu.peak_for(model::Precision::Bf16);
  const model::Efficiency e{.compute = 0.8, .memory = 0.5};
  model::Kernel square{model::GemmShape{4096, 4096, 4096, 1}, 0};
  const auto m =
      engine::model_timed_kernel(timed(square, model::KernelPass::Forward, 1, model::Precision::Bf16), gpu, e);
  const double flop = 2.0 * 4096 * 4096 * 4096;
  CHECK(m.cost.flop == Approx(flop));
  // 32 x 32 = 1,024 tiles of 128 x 128 on 132 SMs: 8 waves, the last one 100 of 132 busy.
  CHECK(m.cost.occupied_flop == Approx(flop * 8 * 132 / 1024.0));
  CHECK(m.model_s == Approx(m.cost.occupied_flop / (peak * 0.8)));
  // The datasheet roof: useful FLOPs at the full dense peak.
  CHECK(m.roof_s == Approx(flop / peak));
  CHECK_FALSE(m.memory_bound);

  // A trace GEMM's weight gradient at micro-batch 8: (n x m b) by (m b x k), BERT's QKV projection.
  model::Kernel qkv{model::GemmShape{256, 3072, 1024, 1}, 2};
  const auto w = engine::model_timed_kernel(timed(qkv, model::KernelPass::WeightGradient, 8, model::Precision::Fp16),
                                            gpu, e);
  CHECK(w.cost.weight_gradient);
  CHECK(w.cost.flop == Approx(2.0 * 256 * 8 * 3072 * 1024));
  CHECK(w.cost.bytes == Approx((3072.0 * 2048 + 2048.0 * 1024 + 3072.0 * 1024) * 2));
  CHECK(w.cost.occupied_flop == Approx(w.cost.flop / engine::tile_efficiency(3072, 1024, 2048, 1, 132)));
}

TEST_CASE("engine::model_timed_kernel prices a streaming kernel by its bytes at the calibrated bandwidth",
          "[engine][kernel-timing]")
{
  const model::GpuType& gpu = h200();
  const model::Efficiency e{.compute = 0.8, .memory = 0.5};
  model::Kernel add{model::ElementwiseShape{1 << 20, 1, 6, false}, 0};
  const auto m = engine::model_timed_kernel(timed(add, model::KernelPass::Forward, 4, model::Precision::Bf16), gpu, e);
  const double bytes = 4.0 * (1 << 20) * 6;
  CHECK(m.cost.bytes == Approx(bytes));
  CHECK(m.memory_bound);
  CHECK(m.model_s == Approx(bytes / (gpu.memory_bw_Bps * 0.5)));
  CHECK(m.roof_s == Approx(bytes / gpu.memory_bw_Bps));
}

TEST_CASE("engine::model_timed_kernel: no timed kernel of the fixture is modelled above the dense peak or the HBM "
          "bandwidth, whatever the efficiencies up to 1",
          "[engine][kernel-timing]")
{
  const auto timings =
      config::read_kernel_timings(std::string(GPUSCALE_SOURCE_DIR) + "/tests/data/kernel_timings/cpu_smoke.yaml");
  REQUIRE(timings.timings.size() == 21);
  for (const double efficiency : {0.3, 0.7, 1.0})
    for (const auto& timing : timings.timings) {
      const auto m = engine::model_timed_kernel(timing, h200(), {.compute = efficiency, .memory = efficiency});
      INFO(timing.line << " at " << efficiency);
      CHECK(m.model_s >= m.roof_s * (1 - 1e-12));
      CHECK(m.cost.occupied_flop >= m.cost.flop * (1 - 1e-12));
    }
}
