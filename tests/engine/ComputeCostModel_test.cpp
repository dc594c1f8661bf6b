#include "sim/config/PlatformReader.hpp"
#include "sim/config/WorkloadReader.hpp"
#include "sim/engine/ComputeCostModel.hpp"
#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "sim/engine/StepDecomposition.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

model::ResolvedScenario resnet_on_a_dgx_h100()
{
  model::ResolvedScenario r;
  r.platform = config::read_platform(std::string(GPUSCALE_SOURCE_DIR) + "/platforms/dgx-h100-1node.yaml");
  r.workload = config::read_workload(std::string(GPUSCALE_SOURCE_DIR) + "/workloads/resnet50.yaml");
  auto& s = r.scenario;
  s.name = "roofline";
  s.gpus = 8;
  s.global_batch_size = 512;
  s.micro_batch_size = 32;
  s.efficiency = {.compute = 0.4, .memory = 0.7};
  return r;
}

} // namespace

TEST_CASE("engine::kernel_time_s is the roofline maximum for memory-bound kinds only", "[engine]")
{
  const model::Efficiency e{.compute = 0.5, .memory = 0.8};
  const engine::KernelCost norm{1e9, 4e9, true};      // 1e9 / 0.5e15 = 2 us; 4e9 / 2.4e12 = 1.67 ms
  const engine::KernelCost gemm{1e12, 4e9, false};
  const model::Roofline roofline = model::PeakRates{1e15, 3e12}.at(e);
  CHECK(engine::kernel_time_s(norm, roofline) == Approx(4e9 / (3e12 * 0.8)));
  CHECK(engine::is_memory_limited(norm, roofline));
  CHECK(engine::kernel_time_s(gemm, roofline) == Approx(1e12 / (1e15 * 0.5)));
  CHECK_FALSE(engine::is_memory_limited(gemm, roofline));
  CHECK(engine::is_memory_bound_kind(model::LayerKind::Elementwise));
  CHECK_FALSE(engine::is_memory_bound_kind(model::LayerKind::Attention));
}

TEST_CASE("engine::forward_kernel moves read + write of the activation, backward 3x, split like the FLOPs",
          "[engine]")
{
  model::Layer layer;
  layer.kind = model::LayerKind::Norm;
  layer.forward_flop_per_sample = 7e6;
  layer.backward_flop_per_sample = 14e6;
  layer.activation_bytes_per_sample = 2e6;
  model::Scenario s;
  s.gpus = 8;
  s.tensor_parallel = 2;
  s.sequence_parallel = true; // replicated layers split along the sequence
  s.micro_batch_size = 4;
  const auto forward = engine::forward_kernel(layer, s, model::Precision::Bf16, 4);
  CHECK(forward.bytes == Approx(2 * 2e6 * 4 / 2));
  CHECK(forward.flop == Approx(7e6 * 4 / 2));
  const auto backward = engine::backward_kernel(layer, s, model::Precision::Bf16, 4);
  CHECK(backward.bytes == Approx(3 * 2e6 * 4 / 2));
  layer.activation_bytes_per_sample = 0; // nothing kept: elements estimated from FLOPs (4 per element)
  CHECK(engine::forward_kernel(layer, s, model::Precision::Bf16, 4).bytes == Approx(2 * 2.0 * 7e6 / 4 * 4 / 2));
}

TEST_CASE("engine::decompose_step accounts for exactly the kernels and optimizer the program runs", "[engine]")
{
  const auto r = resnet_on_a_dgx_h100();
  const auto& gpu = r.platform.gpu_types.at("h100-sxm5-80gb");
  const auto program = engine::build_step_program(r.workload, r.scenario, gpu, r.precision());
  const double peak = gpu.peak_for(r.precision()).value();
  const auto work = engine::decompose_step(r);
  CHECK(work.busy_time_s(r.scenario.efficiency) ==
        Approx(program.compute_flop / (peak * r.scenario.efficiency.compute) + program.sleep_s).epsilon(1e-12));
  CHECK(work.memory_limited_s(r.scenario.efficiency) > 0); // ResNet's residual adds are HBM-bound on an H100
}

TEST_CASE("engine: a simulated step's compute time equals the decomposition's busy time", "[engine]")
{
  const auto r = resnet_on_a_dgx_h100();
  const auto result = engine::simulate_iteration_isolated(r);
  CHECK(result.compute_time_s == Approx(engine::decompose_step(r).busy_time_s(r.scenario.efficiency)).epsilon(1e-9));
}

TEST_CASE("engine::decompose_step counts the forward kernels a checkpointed block reruns", "[engine]")
{
  // Llama 2 LoRA as the MLPerf scenario lays it out (tp 4, SP, checkpointing): its norms and
  // residual adds are HBM-bound, so the recomputed forward kernels enter the decomposition as
  // kernels of their own, exactly as the program runs them.
  model::ResolvedScenario r;
  r.platform = config::read_platform(std::string(GPUSCALE_SOURCE_DIR) + "/platforms/dgx-h100-1node.yaml");
  r.workload = config::read_workload(std::string(GPUSCALE_SOURCE_DIR) + "/workloads/llama2-70b-lora.yaml");
  auto& s = r.scenario;
  s.name = "recompute";
  s.gpus = 8;
  s.tensor_parallel = 4;
  s.sequence_parallel = true;
  s.global_batch_size = 8;
  s.micro_batch_size = 1;
  s.efficiency = {0.4, 1.0, 0.7};
  const auto& gpu = r.platform.gpu_types.at("h100-sxm5-80gb");
  const double peak = gpu.peak_for(r.precision()).value();
  double busy_without_s = 0;
  for (bool checkpointing : {false, true}) {
    s.activation_checkpointing = checkpointing;
    const auto program = engine::build_step_program(r.workload, s, gpu, r.precision());
    const auto work = engine::decompose_step(r);
    const double busy_s = work.busy_time_s(s.efficiency);
    INFO("checkpointing " << checkpointing);
    CHECK(busy_s == Approx(program.compute_flop / (peak * s.efficiency.compute) + program.sleep_s).epsilon(1e-12));
    if (!checkpointing)
      busy_without_s = busy_s;
    else // the recompute is one more forward of the recomputed layers
      CHECK(busy_s > busy_without_s * 1.3);
  }
}
