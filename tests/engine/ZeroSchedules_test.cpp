// ZeRO schedules: data-parallel volume per step (ZeRO paper, sec. 7: 2Ψ for stages 0-2, 3Ψ for
// stage 3) counted from the bytes the simulated collectives actually sent, and the overlap each
// stage allows.

#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

model::ResolvedScenario zero_scenario(int stage, int gpus = 8, int accumulation = 1)
{
  // 40 layers of 5M parameters: Ψ = 200M, gradients 400 MB in bf16.
  const auto workload = testing::synthetic_workload(std::vector<double>(40, 5e6), 2e9);
  auto s = testing::synthetic_scenario(testing::synthetic_platform(1, gpus, 200e9, 1e-6), workload, gpus, 4, accumulation);
  s.scenario.zero_stage = stage;
  s.scenario.zero3_prefetch_params = 10e6; // gather two layers at a time
  return s;
}

} // namespace

TEST_CASE("engine ZeRO data-parallel bytes per GPU per step: 2Ψ for stages 0-2, 3Ψ for stage 3", "[engine][zero]")
{
  const double psi = 200e6;
  const double element = 2; // bf16
  const int p = 8;
  const double ring_share = (p - 1.0) / p; // a ring rank sends (p-1)/p of the buffer per pass
  for (int stage = 0; stage <= 3; ++stage) {
    const auto result = engine::simulate_iteration_isolated(zero_scenario(stage, p));
    const double volume_in_psi = result.dp_bytes_sent_per_gpu / (ring_share * psi * element);
    INFO("stage " << stage << ": " << volume_in_psi << " Ψ");
    CHECK(volume_in_psi == Approx(stage == 3 ? 3.0 : 2.0).epsilon(1e-6));
  }
}

TEST_CASE("engine ZeRO-0/1 communicate once per step, ZeRO-2/3 on every micro-batch", "[engine][zero]")
{
  const auto gpu = testing::synthetic_gpu();
  for (int stage = 0; stage <= 3; ++stage) {
    const auto one = zero_scenario(stage, 8, 1);
    const auto four = zero_scenario(stage, 8, 4);
    const auto p1 = engine::build_step_program(one.workload, one.scenario, gpu, model::Precision::Bf16);
    const auto p4 = engine::build_step_program(four.workload, four.scenario, gpu, model::Precision::Bf16);
    const auto gradients = static_cast<std::size_t>(engine::Stream::Gradients);
    INFO("stage " << stage);
    if (stage <= 1)
      CHECK(p4.submitted[gradients] == p1.submitted[gradients]);
    else
      CHECK(p4.submitted[gradients] == 4 * p1.submitted[gradients]);
  }
}

TEST_CASE("engine ZeRO-3 prefetch overlaps parameter gathers with compute", "[engine][zero]")
{
  // With the next group's gather in flight during the current group's compute, the step is far
  // shorter than compute + all communication back to back.
  const auto result = engine::simulate_iteration_isolated(zero_scenario(3));
  CHECK(result.comm_time_s > 0);
  CHECK(result.iteration_time_s < 0.8 * (result.compute_time_s + result.comm_time_s));
  CHECK(result.exposed_comm_s < result.comm_time_s);
}

TEST_CASE("engine ZeRO stages shard the optimizer step over data-parallel ranks", "[engine][zero]")
{
  const auto gpu = testing::synthetic_gpu();
  const auto zero0 = zero_scenario(0);
  const auto zero1 = zero_scenario(1);
  const auto p0 = engine::build_step_program(zero0.workload, zero0.scenario, gpu, model::Precision::Bf16);
  const auto p1 = engine::build_step_program(zero1.workload, zero1.scenario, gpu, model::Precision::Bf16);
  CHECK(p1.sleep_s == Approx(p0.sleep_s / 8));
}

TEST_CASE("engine tensor parallelism: compute splits over TP ranks and activations are all-reduced", "[engine][tp]")
{
  // Two layers per block: a column-parallel one (backward all-reduce of its input gradient) and a
  // row-parallel one (forward all-reduce of its output), each 1 MB of activations per sample.
  model::WorkloadTrace workload = testing::synthetic_workload({4e6, 4e6}, 8e9);
  workload.layers[0].tensor_parallel = model::TensorParallelMode::Column;
  workload.layers[0].tp_comm_bytes_per_sample = 1e6;
  workload.layers[1].tensor_parallel = model::TensorParallelMode::Row;
  workload.layers[1].tp_comm_bytes_per_sample = 1e6;
  const int micro = 2;
  auto plain = testing::synthetic_scenario(testing::synthetic_platform(1, 8, 200e9, 1e-6), workload, 8, micro);
  auto tp = plain;
  tp.scenario.tensor_parallel = 4;
  tp.scenario.global_batch_size = micro * 2; // dp = 2
  plain.scenario.global_batch_size = micro * 8;
  const auto gpu = testing::synthetic_gpu();
  const auto p_plain = engine::build_step_program(workload, plain.scenario, gpu, model::Precision::Bf16);
  const auto p_tp = engine::build_step_program(workload, tp.scenario, gpu, model::Precision::Bf16);
  CHECK(p_tp.compute_flop == Approx(p_plain.compute_flop / 4));
  CHECK(p_tp.submitted[static_cast<std::size_t>(engine::Stream::TensorParallel)] == 2);

  const auto result = engine::simulate_iteration_isolated(tp);
  const double tp_bytes = result.bytes_sent_per_gpu - result.dp_bytes_sent_per_gpu;
  // two all-reduces of micro x 1 MB in a TP ring of 4: 2 x 2(4-1)/4 x 2 MB
  CHECK(tp_bytes == Approx(2 * 2.0 * 3 / 4 * micro * 1e6).epsilon(1e-6));
  // data parallelism over dp = 2 replicas, parameters sharded by 4: 2(2-1)/2 x 8M/4 params x 2 B
  CHECK(result.dp_bytes_sent_per_gpu == Approx(2.0 * 1 / 2 * 8e6 / 4 * 2).epsilon(1e-6));
}

TEST_CASE("engine optimizer traffic per parameter: Adam's one pass, LAMB's trust ratio a second", "[engine][optimizer]")
{
  using model::Optimizer;
  using model::Precision;
  // mixed precision Adam: read fp16 gradient, fp32 master, m, v; write master, m, v, fp16 copy
  CHECK(engine::optimizer_traffic_bytes_per_param(Optimizer::Adam, Precision::Fp16) == 2 + 4 + 8 + 4 + 8 + 2);
  CHECK(engine::optimizer_traffic_bytes_per_param(Optimizer::Adam, Precision::Fp32) == 4 + 4 + 8 + 4 + 8);
  CHECK(engine::optimizer_traffic_bytes_per_param(Optimizer::SgdMomentum, Precision::Fp32) == 4 + 4 + 4 + 4 + 4);
  // LAMB writes the update, reads it and the weights for the norms, and again to apply it
  for (Precision precision : {Precision::Fp16, Precision::Bf16, Precision::Fp32})
    CHECK(engine::optimizer_traffic_bytes_per_param(Optimizer::Lamb, precision) ==
          engine::optimizer_traffic_bytes_per_param(Optimizer::Adam, precision) + 4 + 8 + 8);
}
