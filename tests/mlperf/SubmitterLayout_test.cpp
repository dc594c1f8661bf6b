// The layout an MLPerf result is simulated with: the rule where the logs say nothing, the logged
// gradient accumulation where they do (Llama 2: it fixes the data-parallel degree; the others: the
// micro-batch), and the rule again where the logged figure does not divide.
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/MlperfSystemReader.hpp"
#include "sim/engine/MemoryModel.hpp"
#include "sim/mlperf/MlperfScenarioBuilder.hpp"
#include "sim/model/Recomputation.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace gpuscale;

namespace {

const std::string kData = std::string(GPUSCALE_SOURCE_DIR) + "/tests/data/mlperf";

struct Layout {
  int tp = 0, cp = 0, data_parallel = 0, micro_batch = 0, accumulation = 0, zero_stage = 0;
  bool cuda_graph = false;
};

Layout layout_of(const std::string& system_file, model::Benchmark benchmark, int global_batch, int logged_steps)
{
  static mlperf::MlperfScenarioBuilder builder;
  const auto built = builder.build(config::read_mlperf_system(kData + "/" + system_file), benchmark, global_batch,
                                   logged_steps, config::default_calibration(), false);
  const model::Scenario& s = built.resolved.scenario;
  REQUIRE(s.data_parallel() * s.micro_batch_size * s.gradient_accumulation_steps() == global_batch);
  return {s.tensor_parallel,   s.context_parallel,           s.data_parallel(), s.micro_batch_size,
          s.gradient_accumulation_steps(), s.zero_stage, s.cuda_graph};
}

} // namespace

TEST_CASE("mlperf: Llama 2's logged accumulation steps fix its data-parallel degree, the rest is tp then cp",
          "[mlperf]")
{
  const std::string h100_8 = "systems/v9.9/Acme__box8.json";
  // Without logs, the least model parallelism that fits: on an 80 GB H100 a replica per GPU, the
  // frozen weights stored in FP8 (69 GB) beside every layer's checkpoint (every 8x H100 submission
  // logs tp 4); more on a 48 GB L40S, which holds tp 2's share (35 GB) but not all of them.
  const auto rule = layout_of(h100_8, model::Benchmark::Llama2_70bLora, 8, 0);
  CHECK((rule.tp == 1 && rule.cp == 1 && rule.data_parallel == 8 && rule.zero_stage == 0));
  const auto small = layout_of("hand_built_l40s_8.json", model::Benchmark::Llama2_70bLora, 8, 0);
  CHECK(small.tp * small.cp == 2);
  // NVIDIA's 8x H100 submissions log 4 steps: the rule's layout.
  const auto nvidia = layout_of(h100_8, model::Benchmark::Llama2_70bLora, 8, 4);
  CHECK((nvidia.tp == 4 && nvidia.cp == 1 && nvidia.data_parallel == 2 && nvidia.accumulation == 4));
  // Every 8x H200 and B200 submission logs 2: tp 2, 4 replicas.
  const auto two = layout_of(h100_8, model::Benchmark::Llama2_70bLora, 8, 2);
  CHECK((two.tp == 2 && two.cp == 1 && two.data_parallel == 4 && two.zero_stage == 0 && two.cuda_graph));
  // One step over 8 GPUs is a replica per GPU: whole where it fits (the H100 above), else the whole
  // model sharded (ZeRO-3, as DeepSpeed runs it; a 48 GB L40S), which no CUDA graph captures.
  const auto replica = layout_of(h100_8, model::Benchmark::Llama2_70bLora, 8, 1);
  CHECK((replica.tp == 1 && replica.cp == 1 && replica.data_parallel == 8 && replica.zero_stage == 0));
  const auto sharded = layout_of("hand_built_l40s_8.json", model::Benchmark::Llama2_70bLora, 8, 1);
  CHECK((sharded.tp == 1 && sharded.cp == 1 && sharded.data_parallel == 8 && sharded.zero_stage == 3));
  CHECK_FALSE(sharded.cuda_graph);

  const std::string b200_32 = "hand_built_dgx_b200_4node.json";
  const auto wide = layout_of(b200_32, model::Benchmark::Llama2_70bLora, 8, 1); // 8 replicas of 4 GPUs
  CHECK((wide.tp == 4 && wide.cp == 1 && wide.data_parallel == 8));
  const auto deep = layout_of(b200_32, model::Benchmark::Llama2_70bLora, 8, 2); // 4 replicas of 8 GPUs
  CHECK((deep.tp == 4 && deep.cp == 2 && deep.data_parallel == 4));
  // 3 steps do not divide the batch of 8: the rule decides, as without logs (8 replicas at most,
  // so 4 GPUs each).
  const auto odd = layout_of(b200_32, model::Benchmark::Llama2_70bLora, 8, 3);
  const auto unlogged = layout_of(b200_32, model::Benchmark::Llama2_70bLora, 8, 0);
  CHECK((unlogged.tp == 4 && unlogged.cp == 1 && unlogged.data_parallel == 8));
  CHECK((odd.tp == unlogged.tp && odd.cp == unlogged.cp && odd.data_parallel == unlogged.data_parallel));
}

TEST_CASE("mlperf: Llama 2 recomputes the fewest decoder layers that fit, every one under ZeRO-3", "[mlperf]")
{
  static mlperf::MlperfScenarioBuilder builder;
  auto build = [](const std::string& system_file, int logged_steps) {
    return builder.build(config::read_mlperf_system(kData + "/" + system_file), model::Benchmark::Llama2_70bLora, 8,
                         logged_steps, config::default_calibration(), false);
  };
  auto fits = [](const model::ResolvedScenario& r) {
    const auto& gpu = r.platform.gpu_type_of(r.platform.node_type_of_group(0));
    return engine::estimate_memory(r.workload, r.scenario, gpu, r.precision(), r.scenario.data_parallel()).fits();
  };
  // NVIDIA's 8x H100 layout (tp 4, SP): the activations of all 80 layers fit beside the frozen weights.
  const auto h100 = build("systems/v9.9/Acme__box8.json", 4);
  CHECK_FALSE(h100.resolved.scenario.activation_checkpointing);
  // A 48 GB L40S at tp 4 does not hold them all: some layers are recomputed, the fewest that fit.
  auto l40s = build("hand_built_l40s_8.json", 0).resolved;
  REQUIRE(l40s.scenario.activation_checkpointing);
  REQUIRE(l40s.scenario.activation_checkpointing_blocks.has_value());
  const int blocks = *l40s.scenario.activation_checkpointing_blocks;
  CHECK((blocks > 1 && blocks < model::checkpoint_block_count(l40s.workload)));
  CHECK(fits(l40s));
  l40s.scenario.activation_checkpointing_blocks = blocks - 1;
  CHECK_FALSE(fits(l40s));
  // The DeepSpeed layout (a replica per GPU, ZeRO-3) runs the reference, which checkpoints every layer.
  const auto sharded = build("hand_built_l40s_8.json", 1).resolved.scenario;
  CHECK((sharded.zero_stage == 3 && sharded.activation_checkpointing && !sharded.activation_checkpointing_blocks));
}

TEST_CASE("mlperf: a data-parallel benchmark's logged accumulation steps fix its micro-batch", "[mlperf]")
{
  const std::string h100_8 = "systems/v9.9/Acme__box8.json";
  // 48 samples over 8 GPUs: 6 per GPU. The rule takes the largest micro-batch that fits.
  CHECK(layout_of(h100_8, model::Benchmark::Bert, 48, 0).micro_batch == 6);
  const auto logged = layout_of(h100_8, model::Benchmark::Bert, 48, 2);
  CHECK((logged.micro_batch == 3 && logged.accumulation == 2));
  CHECK(layout_of(h100_8, model::Benchmark::Bert, 48, 6).micro_batch == 1);
  CHECK(layout_of(h100_8, model::Benchmark::Bert, 48, 4).micro_batch == 6); // 4 does not divide 6
}
