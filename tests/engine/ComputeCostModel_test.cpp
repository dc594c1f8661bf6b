#include "sim/config/PlatformReader.hpp"
#include "sim/config/WorkloadReader.hpp"
#include "sim/engine/ComputeCostModel.hpp"
#include "sim/engine/MemoryModel.hpp"
#include "sim/model/Recomputation.hpp"
#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "sim/engine/StepDecomposition.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

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

TEST_CASE("engine::kernel_time_s is the roofline maximum of a kernel's occupied FLOPs and its bytes", "[engine]")
{
  const model::Efficiency e{.compute = 0.5, .memory = 0.8};
  const model::Roofline roofline = model::PeakRates{1e15, 3e12}.at(e);
  const engine::KernelCost norm{1e9, 1e9, 4e9, true, false}; // 1e9 / 0.5e15 = 2 us; 4e9 / 2.4e12 = 1.67 ms
  const engine::KernelCost gemm{1e12, 1.25e12, 4e9, true, false};
  CHECK(engine::kernel_time_s(norm, roofline) == Approx(4e9 / (3e12 * 0.8)));
  CHECK(engine::kernel_time_s(gemm, roofline) == Approx(1.25e12 / (1e15 * 0.5)));
  engine::LayerKernels layer;
  layer.kernels = {norm, gemm, {1e6, 1e6, 0.0, false, false}}; // the last one fused: no launch
  CHECK(engine::kernels_time_s(layer, roofline, 1e-6) ==
        Approx(4e9 / 2.4e12 + 1.25e12 / 0.5e15 + 1e6 / 0.5e15 + 2e-6));
}

TEST_CASE("engine::tile_efficiency: full waves of full tiles are efficient, a partial last wave is not",
          "[engine]")
{
  // 132 tiles of 128 x 128 fill the 132 SMs of an H100 once.
  CHECK(engine::tile_efficiency(128 * 12, 128 * 11, 4096, 1, 132) == Approx(1.0));
  // One tile more needs a second wave in which 131 SMs idle.
  CHECK(engine::tile_efficiency(128 * 133, 128, 4096, 1, 132) == Approx(133.0 / 264.0));
  // A 64-row product fills half of each 128 x 128 tile... but MMA granularity lets the tile shrink to 64.
  CHECK(engine::tile_efficiency(64, 128 * 132, 4096, 1, 132) == Approx(1.0));
  // 72 rows pad to 80 (multiples of 16).
  CHECK(engine::tile_efficiency(72, 128 * 132, 4096, 1, 132) == Approx(72.0 / 80.0));
  // Few tiles and a long inner dimension: split-K fills the units (4 tiles x 33 splits = 132).
  CHECK(engine::tile_efficiency(256, 256, 33 * 512, 1, 132) == Approx(1.0));
  // Unknown units: no quantisation.
  CHECK(engine::tile_efficiency(1, 1, 1, 1, 0) == 1.0);
}

TEST_CASE("engine::forward_kernels of a layer without shapes streams 2 x its activations, backward 3x, split "
          "like the FLOPs",
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
  const model::GpuType gpu;
  const auto forward = engine::forward_kernels(layer, s, gpu, model::Precision::Bf16, 4);
  REQUIRE(forward.kernels.size() == 1);
  CHECK(forward.kernels[0].bytes == Approx(2 * 2e6 * 4 / 2));
  CHECK(forward.flop() == Approx(7e6 * 4 / 2));
  const auto backward = engine::backward_kernels(layer, s, gpu, model::Precision::Bf16, 4);
  CHECK(backward.kernels[0].bytes == Approx(3 * 2e6 * 4 / 2));
  layer.activation_bytes_per_sample = 0; // nothing kept: elements estimated from FLOPs (4 per element)
  CHECK(engine::forward_kernels(layer, s, gpu, model::Precision::Bf16, 4).kernels[0].bytes ==
        Approx(2 * 2.0 * 7e6 / 4 * 4 / 2));
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

namespace {

/// Llama 2 LoRA on one DGX H100 as NVIDIA lays it out (tp 4 with SP, 2 replicas, micro-batch 1), at
/// fixed efficiencies, without checkpointing: the tests below switch it on.
model::ResolvedScenario llama_tp4_on_a_dgx_h100()
{
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
  return r;
}

} // namespace

TEST_CASE("engine::decompose_step counts the forward kernels a checkpointed block reruns", "[engine]")
{
  // Llama 2 LoRA as the MLPerf scenario lays it out (tp 4, SP, checkpointing): its norms and
  // residual adds are HBM-bound, so the recomputed forward kernels enter the decomposition as
  // kernels of their own, exactly as the program runs them.
  model::ResolvedScenario r = llama_tp4_on_a_dgx_h100();
  auto& s = r.scenario;
  const auto& gpu = r.platform.gpu_types.at("h100-sxm5-80gb");
  const double peak = gpu.peak_for(r.precision()).value();
  double busy_without_s = 0;
  for (bool checkpointing : {false, true}) {
    s.activation_checkpointing = checkpointing;
    s.tp_comm_overlap = checkpointing; // chunked GEMMs (tp_overlap_row_chunks) enter both alike
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

TEST_CASE("engine: recomputing fewer blocks costs less time and more memory, all blocks as full checkpointing",
          "[engine][memory]")
{
  // Llama 2 LoRA on 8 H100 as tp 4 with SP: NeMo's block checkpointing of the first N of 80 decoder
  // layers. Each recomputed layer adds its forward to the step and frees its stored activations,
  // less the one block that is live again during its own backward.
  model::ResolvedScenario r = llama_tp4_on_a_dgx_h100();
  auto& s = r.scenario;
  const auto& gpu = r.platform.gpu_types.at("h100-sxm5-80gb");
  REQUIRE(model::checkpoint_block_count(r.workload) == 80);
  auto busy_s = [&] { return engine::decompose_step(r).busy_time_s(s.efficiency); };
  auto memory_bytes = [&] {
    return engine::estimate_memory(r.workload, s, gpu, r.precision(), s.data_parallel()).activation_bytes;
  };
  s.activation_checkpointing = false;
  const double none_s = busy_s();
  const double none_bytes = memory_bytes();
  s.activation_checkpointing = true;
  const double all_s = busy_s();
  const double all_bytes = memory_bytes();
  s.activation_checkpointing_blocks = 80;
  CHECK(busy_s() == all_s);
  CHECK(memory_bytes() == all_bytes);
  s.activation_checkpointing_blocks = 1; // the one recomputed block is stored again while it reruns
  CHECK(memory_bytes() == Approx(none_bytes).epsilon(1e-12));
  double previous_s = none_s;
  double previous_bytes = none_bytes;
  for (int blocks : {2, 20, 40, 79}) {
    s.activation_checkpointing_blocks = blocks;
    INFO(blocks << " blocks recomputed");
    CHECK(busy_s() > previous_s);
    CHECK(memory_bytes() < previous_bytes);
    // linear in the blocks: a quarter of the blocks, a quarter of the full recompute's extra time
    CHECK(busy_s() - none_s == Approx((all_s - none_s) * blocks / 80.0).epsilon(1e-9));
    previous_s = busy_s();
    previous_bytes = memory_bytes();
  }
  CHECK(all_s > previous_s);
  CHECK(all_bytes < previous_bytes);
}

namespace {

/// Seconds of one rank's forward and backward kernels for a micro-batch (launches included), at the
/// roofs `gpu` reaches at `efficiency`: the kernel model alone, no communication.
double pass_time_s(const model::WorkloadTrace& workload, const model::Scenario& s, const model::GpuType& gpu,
                   int micro_batch, const model::Efficiency& efficiency)
{
  const model::Roofline roofline = model::peak_rates_of(gpu, workload.precision).at(efficiency);
  double seconds = 0;
  for (const auto& layer : workload.layers)
    for (const auto& kernels : {engine::forward_kernels(layer, s, gpu, workload.precision, micro_batch),
                                engine::backward_kernels(layer, s, gpu, workload.precision, micro_batch)})
      seconds += engine::kernels_time_s(kernels, roofline, engine::launch_time_s(s));
  return seconds;
}

model::GpuType h100()
{
  return config::read_platform(std::string(GPUSCALE_SOURCE_DIR) + "/platforms/dgx-h100-1node.yaml")
      .gpu_types.at("h100-sxm5-80gb");
}

model::WorkloadTrace workload(const std::string& name)
{
  return config::read_workload(std::string(GPUSCALE_SOURCE_DIR) + "/workloads/" + name + ".yaml");
}

} // namespace

TEST_CASE("engine: the time per sample is non-increasing in the micro-batch and saturates", "[engine][kernels]")
{
  const model::GpuType gpu = h100();
  REQUIRE(gpu.compute_units == 132);
  const model::Efficiency efficiency{.compute = 0.8, .memory = 0.85};
  for (const char* name : {"resnet50", "bert-large", "retinanet", "stable-diffusion"}) {
    const auto trace = workload(name);
    for (bool graph : {false, true}) {
      model::Scenario s;
      s.cuda_graph = graph;
      double previous = 0;
      for (int micro = 1; micro <= 256; micro *= 2) {
        const double per_sample = pass_time_s(trace, s, gpu, micro, efficiency) / micro;
        INFO(name << " micro-batch " << micro << (graph ? " (CUDA graph)" : ""));
        if (previous > 0)
          CHECK(per_sample <= previous * (1 + 1e-12));
        if (micro == 256) // saturated: doubling the micro-batch gains less than 5 %
          CHECK(per_sample >= 0.95 * previous);
        previous = per_sample;
      }
    }
  }
}

TEST_CASE("engine: ResNet-50 on an H100 costs at least 3x per image at micro-batch 1 what it costs at 128",
          "[engine][kernels]")
{
  // At micro-batch 1 a 7x7 feature map of 2048 channels is a 49-row GEMM: one tile row of 64 on
  // 16 of the 132 SMs, and each of the ~140 kernels per pass pays its launch for one image. At 128
  // images the same products fill whole waves and the launches are shared by 128 images.
  const model::GpuType gpu = h100();
  const auto trace = workload("resnet50");
  const model::Efficiency efficiency{.compute = 0.8, .memory = 0.85};
  for (bool graph : {false, true}) {
    model::Scenario s;
    s.cuda_graph = graph;
    const double one = pass_time_s(trace, s, gpu, 1, efficiency);
    const double many = pass_time_s(trace, s, gpu, 128, efficiency) / 128;
    INFO((graph ? "CUDA graph: " : "eager: ") << one * 1e6 << " us vs " << many * 1e6 << " us per image");
    CHECK(one >= 3 * many);
  }
}

TEST_CASE("engine: an accelerator with twice the compute units and twice the peak is not slower on any layer",
          "[engine][kernels]")
{
  const model::GpuType gpu = h100();
  model::GpuType twice = gpu;
  twice.compute_units *= 2;
  for (auto& [precision, peak] : twice.peak_flop_per_s)
    peak *= 2;
  const model::Efficiency efficiency{.compute = 0.8, .memory = 0.85};
  model::Scenario s;
  for (const char* name : {"resnet50", "bert-large", "llama2-70b-lora", "retinanet", "stable-diffusion"}) {
    const auto trace = workload(name);
    const model::Roofline roof = model::peak_rates_of(gpu, trace.precision).at(efficiency);
    const model::Roofline roof2 = model::peak_rates_of(twice, trace.precision).at(efficiency);
    int slower = 0;
    for (int micro : {1, 3, 32}) {
      for (const auto& layer : trace.layers) {
        const auto forward = engine::forward_kernels(layer, s, gpu, trace.precision, micro);
        const auto forward2 = engine::forward_kernels(layer, s, twice, trace.precision, micro);
        const auto backward = engine::backward_kernels(layer, s, gpu, trace.precision, micro);
        const auto backward2 = engine::backward_kernels(layer, s, twice, trace.precision, micro);
        if (engine::kernels_time_s(forward2, roof2, 1e-6) > engine::kernels_time_s(forward, roof, 1e-6) * (1 + 1e-12) ||
            engine::kernels_time_s(backward2, roof2, 1e-6) > engine::kernels_time_s(backward, roof, 1e-6) * (1 + 1e-12))
          ++slower;
      }
    }
    INFO(name);
    CHECK(slower == 0);
  }
}

TEST_CASE("engine: no kernel runs above the dense peak or the HBM bandwidth", "[engine][kernels]")
{
  const model::GpuType gpu = h100();
  const model::Efficiency full{.compute = 1.0, .memory = 1.0};
  model::Scenario s;
  s.tensor_parallel = 1;
  for (const char* name : {"resnet50", "bert-large", "llama2-70b-lora", "retinanet", "stable-diffusion"}) {
    const auto trace = workload(name);
    const model::PeakRates peaks = model::peak_rates_of(gpu, trace.precision);
    const model::Roofline roof = peaks.at(full);
    int above = 0, kernels = 0;
    for (int micro : {1, 7, 64})
      for (const auto& layer : trace.layers)
        for (const auto& pass : {engine::forward_kernels(layer, s, gpu, trace.precision, micro),
                                 engine::backward_kernels(layer, s, gpu, trace.precision, micro)})
          for (const auto& kernel : pass.kernels) {
            const double t = engine::kernel_time_s(kernel, roof);
            ++kernels;
            if (kernel.flop > peaks.flop_per_s * t * (1 + 1e-12) || kernel.bytes > peaks.memory_bw_Bps * t * (1 + 1e-12))
              ++above;
          }
    INFO(name << ": " << kernels << " kernels");
    CHECK(kernels > 0);
    CHECK(above == 0);
  }
}

TEST_CASE("engine: a GEMM beside an overlapped TP collective runs as tp row chunks, each quantised on its own",
          "[engine][kernels]")
{
  // Llama 2's qkv projection on one tp 4 rank with cp 2: 4096 tokens x (10240 / 4) columns x 8192.
  // Whole, its 32 x 20 = 640 tiles take 5 waves of an H100's 132 SMs (97 %); cut in 4 chunks of 1024
  // rows (TransformerEngine's userbuffers), each chunk's 8 x 20 = 160 tiles take 2 waves (61 %).
  const model::GpuType gpu = h100();
  model::Layer qkv;
  qkv.name = "qkv";
  qkv.kind = model::LayerKind::Linear;
  qkv.frozen_params = 8192.0 * 10240;
  qkv.tensor_parallel = model::TensorParallelMode::Column;
  qkv.tp_comm_bytes_per_sample = 8192.0 * 8192 * 2;
  qkv.kernels = {model::Kernel{model::GemmShape{8192, 10240, 8192, 1}, 1}};
  qkv.forward_flop_per_sample = qkv.kernels[0].forward_flop();
  qkv.backward_flop_per_sample = qkv.kernels[0].backward_flop();
  model::Scenario s;
  s.gpus = 8;
  s.tensor_parallel = 4;
  s.context_parallel = 2;
  s.sequence_parallel = true;
  const double flop = 2.0 * 4096 * 2560 * 8192;
  const double whole_occupied = flop / (4096.0 * 2560 / (5 * 132 * 128.0 * 128));
  const double chunk_occupied = flop / 4 / (1024.0 * 2560 / (2 * 132 * 128.0 * 128));

  CHECK(engine::tp_overlap_row_chunks(qkv, s, false) == 1); // no overlap: the GEMM runs whole
  const auto whole = engine::forward_kernels(qkv, s, gpu, model::Precision::Fp8, 1);
  REQUIRE(whole.kernels.size() == 1);
  CHECK(whole.kernels[0].occupied_flop == Approx(whole_occupied).epsilon(1e-12));

  s.tp_comm_overlap = true;
  REQUIRE(engine::tp_overlap_row_chunks(qkv, s, false) == 4);
  const auto chunked = engine::forward_kernels(qkv, s, gpu, model::Precision::Fp8, 1, 4);
  REQUIRE(chunked.kernels.size() == 4);
  CHECK(chunked.flop() == Approx(flop).epsilon(1e-12));
  for (const auto& chunk : chunked.kernels) {
    CHECK(chunk.launched);
    CHECK(chunk.occupied_flop == Approx(chunk_occupied).epsilon(1e-12));
    // Each chunk reads the whole weight again: its rows, the weight, its output (FP8 runs count the
    // 16-bit tensors TransformerEngine keeps: model::element_bytes).
    CHECK(chunk.bytes == Approx((1024.0 * 8192 + 8192.0 * 2560 + 1024.0 * 2560) *
                                model::element_bytes(model::Precision::Fp8))
                             .epsilon(1e-12));
  }
  // Frozen weights: the input-gradient GEMM carries the reduce-scatter and is chunked too.
  CHECK(engine::tp_overlap_row_chunks(qkv, s, true) == 4);
  CHECK(engine::backward_kernels(qkv, s, gpu, model::Precision::Fp8, 1, 4).kernels.size() == 4);

  // A trained column linear reduces its input gradient beside its weight-gradient GEMM, unchunked
  // (Megatron's asynchronous path); its forward is still chunked.
  model::Layer trained = qkv;
  trained.trainable_params = trained.frozen_params;
  trained.frozen_params = 0;
  trained.kernels[0].backward_factor = 2;
  trained.backward_flop_per_sample = trained.kernels[0].backward_flop();
  CHECK(engine::tp_overlap_row_chunks(trained, s, false) == 4);
  CHECK(engine::tp_overlap_row_chunks(trained, s, true) == 1);
  // Rows cut 4 ways, the weight gradient (over all rows) whole: 4 + 1 products.
  const auto backward = engine::backward_kernels(trained, s, gpu, model::Precision::Fp8, 1, 4);
  CHECK(backward.kernels.size() == 5);
  CHECK(std::count_if(backward.kernels.begin(), backward.kernels.end(),
                      [](const engine::KernelCost& k) { return k.weight_gradient; }) == 1);

  // A replicated layer, or no tensor parallelism: nothing to pipeline.
  model::Layer norm = qkv;
  norm.tensor_parallel = model::TensorParallelMode::Replicated;
  norm.tp_comm_bytes_per_sample = 0;
  CHECK(engine::tp_overlap_row_chunks(norm, s, false) == 1);
  s.tensor_parallel = 1;
  CHECK(engine::tp_overlap_row_chunks(qkv, s, false) == 1);
}
