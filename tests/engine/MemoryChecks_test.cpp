// Memory checks on the real traces and catalog: what fits on which GPU under which stage. The
// numbers are printed (Catch WARN) so the report shows them.

#include "sim/config/PlatformReader.hpp"
#include "sim/config/WorkloadReader.hpp"
#include "sim/engine/MemoryModel.hpp"
#include "sim/units/Quantity.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace gpuscale;

namespace {

const std::string kRoot = GPUSCALE_SOURCE_DIR;

model::GpuType catalog_gpu(const std::string& platform_file, const std::string& node_type)
{
  const auto platform = config::read_platform(kRoot + "/platforms/" + platform_file);
  return platform.gpu_types.at(platform.node_types.at(node_type).gpu_type);
}

engine::MemoryEstimate estimate(const model::WorkloadTrace& workload, const model::GpuType& gpu, int stage, int gpus,
                                int micro, int tp = 1, bool checkpointing = true)
{
  model::Scenario s;
  s.gpus = gpus;
  s.zero_stage = stage;
  s.micro_batch_size = micro;
  s.global_batch_size = micro * gpus / tp;
  s.tensor_parallel = tp;
  s.sequence_parallel = tp > 1;
  s.activation_checkpointing = checkpointing;
  return engine::estimate_memory(workload, s, gpu, workload.precision, s.data_parallel());
}

std::string show(const engine::MemoryEstimate& m, const std::string& gpu)
{
  return m.fits() ? "fits: " + units::format_bytes(m.total_bytes()) + " of " + units::format_bytes(m.capacity_bytes)
                  : m.describe_shortfall(gpu);
}

} // namespace

TEST_CASE("engine memory: Llama2-70B on 8x 80 GB H100 (activation checkpointing, micro-batch 1)", "[engine][memory]")
{
  const auto lora = config::read_workload(kRoot + "/workloads/llama2-70b-lora.yaml");
  const auto h100 = catalog_gpu("dgx-h100-1node.yaml", "dgx-h100");

  model::WorkloadTrace full = lora; // full fine-tuning: every weight trainable
  for (auto& layer : full.layers) {
    layer.trainable_params += layer.frozen_params;
    layer.frozen_params = 0;
  }
  const auto full_zero0 = estimate(full, h100, 0, 8, 1);
  WARN("Llama2-70B full fine-tuning, ZeRO-0: " << show(full_zero0, h100.name));
  CHECK_FALSE(full_zero0.fits());

  const auto lora_zero0 = estimate(lora, h100, 0, 8, 1);
  WARN("Llama2-70B LoRA, ZeRO-0: " << show(lora_zero0, h100.name));
  CHECK_FALSE(lora_zero0.fits());
  CHECK(lora_zero0.frozen_bytes == Approx(2 * 68.98e9).epsilon(0.01)); // ~138 GB of bf16 frozen weights

  const auto lora_zero3 = estimate(lora, h100, 3, 8, 1);
  WARN("Llama2-70B LoRA, ZeRO-3 over 8: " << show(lora_zero3, h100.name));
  CHECK(lora_zero3.fits());

  for (int tp : {4, 8}) {
    const auto lora_tp = estimate(lora, h100, 0, 8, 1, tp);
    WARN("Llama2-70B LoRA, ZeRO-0, tp=" << tp << " with sequence parallelism: " << show(lora_tp, h100.name));
    CHECK(lora_tp.fits());
  }
}

TEST_CASE("engine memory: BERT-large ZeRO-0 fits a 16 GB V100 at micro-batch 8", "[engine][memory]")
{
  const auto bert = config::read_workload(kRoot + "/workloads/bert-large.yaml");
  const auto v100 = catalog_gpu("mixed-a100-v100.yaml", "dgx1-v100");
  const auto m = estimate(bert, v100, 0, 8, 8, 1, false);
  WARN("BERT-large ZeRO-0 on " << v100.name << ", micro-batch 8, no checkpointing: " << show(m, v100.name));
  CHECK(m.fits());
  CHECK_FALSE(estimate(bert, v100, 0, 8, 32, 1, false).fits()); // but not at 32
}
