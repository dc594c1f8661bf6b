// ZeRO as DeepSpeed runs it (docs/ARCHITECTURE.md, "ZeRO as DeepSpeed runs it"; shared/references/ZERO.md):
// overlap_comm and bucket sizes per stage, ZeRO-3's per-module gathers with prefetch, persistence and
// reuse distance, and the host time of the Python hooks, each against its closed form; then the order
// of the stages on the real traces.

#include "sim/config/ScenarioReader.hpp"
#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace gpuscale;

namespace {

const std::string kSource = GPUSCALE_SOURCE_DIR;
constexpr std::size_t kGradients = static_cast<std::size_t>(engine::Stream::Gradients);

/// `layers` trainable layers of `params` each on one node of 8 GPUs, with DeepSpeed's defaults
/// (synthetic_scenario sets the ZeRO paper's closed-form schedule instead).
model::ResolvedScenario deepspeed(int stage, std::vector<double> layers, int accumulation = 1,
                                  double flop_per_sample = 2e9)
{
  const auto workload = testing::synthetic_workload(std::move(layers), flop_per_sample);
  auto s = testing::synthetic_scenario(testing::synthetic_platform(1, 8, 200e9, 1e-6), workload, 8, 4, accumulation);
  s.scenario.zero_stage = stage;
  const model::Scenario defaults;
  s.scenario.bucket_bytes = defaults.bucket_bytes;
  s.scenario.zero3_max_reuse_distance_params = defaults.zero3_max_reuse_distance_params;
  s.scenario.zero_host = defaults.zero_host;
  return s;
}

engine::StepProgram program_of(const model::ResolvedScenario& s)
{
  return engine::build_step_program(s.workload, s.scenario, testing::synthetic_gpu(), model::Precision::Bf16);
}

/// Whether every gradient reduction of `program` is waited for right after it is submitted.
bool gradient_reductions_block(const engine::StepProgram& program)
{
  const auto& in = program.instructions;
  for (std::size_t i = 0; i < in.size(); ++i)
    if (in[i].kind == engine::Instruction::Kind::Submit && in[i].stream == engine::Stream::Gradients &&
        (i + 1 == in.size() || in[i + 1].kind != engine::Instruction::Kind::Wait ||
         in[i + 1].stream != engine::Stream::Gradients))
      return false;
  return true;
}

} // namespace

TEST_CASE("engine ZeRO defaults per stage: DDP's overlapped 25 MB buckets, DeepSpeed's 5e8-element buckets, "
          "overlap_comm off for stages 1-2 and on for 3",
          "[engine][zero]")
{
  for (int stage = 0; stage <= 3; ++stage) {
    const auto s = deepspeed(stage, std::vector<double>(12, 5e6));
    INFO("stage " << stage);
    CHECK(s.scenario.overlaps_communication() == (stage == 0 || stage == 3));
    CHECK(s.scenario.reduce_bucket_bytes() == (stage == 0 ? 25e6 : 1e9));
  }
  // Stage 2 without overlap_comm: each bucket blocks the backward that filled it; with it, none does.
  auto blocking = deepspeed(2, std::vector<double>(12, 5e6));
  blocking.scenario.bucket_bytes = 20e6; // a reduction every second layer
  CHECK(gradient_reductions_block(program_of(blocking)));
  auto overlapped = blocking;
  overlapped.scenario.overlap_comm = true;
  CHECK_FALSE(gradient_reductions_block(program_of(overlapped)));
  CHECK(program_of(overlapped).submitted[kGradients] == program_of(blocking).submitted[kGradients]);
}

TEST_CASE("engine overlap_comm off exposes every gradient reduction, on hides it behind backward", "[engine][zero]")
{
  // DDP's all-reduces (no post-step gather to expose either way), with overlap_comm off as a what-if.
  auto on = deepspeed(0, std::vector<double>(24, 5e6), 1, 4e10);
  on.scenario.bucket_bytes = 20e6;
  auto off = on;
  off.scenario.overlap_comm = false;
  const auto exposed = engine::simulate_iteration_isolated(off);
  const auto hidden = engine::simulate_iteration_isolated(on);
  // Without overlap the step is the compute plus every collective back to back.
  CHECK(exposed.exposed_comm_s == Approx(exposed.comm_time_s).epsilon(1e-9));
  CHECK(hidden.exposed_comm_s < 0.5 * hidden.comm_time_s);
  CHECK(hidden.iteration_time_s < exposed.iteration_time_s);
  CHECK(hidden.dp_bytes_sent_per_gpu == exposed.dp_bytes_sent_per_gpu);
}

TEST_CASE("engine ZeRO-1 reduces during the last backward only with overlap_comm, and once per step either way",
          "[engine][zero]")
{
  auto after = deepspeed(1, std::vector<double>(12, 5e6), 4);
  after.scenario.bucket_bytes = 20e6;
  auto during = after;
  during.scenario.overlap_comm = true;
  const auto p_after = program_of(after);
  const auto p_during = program_of(during);
  CHECK(p_after.submitted[kGradients] == p_during.submitted[kGradients]);
  // After the last backward, all gradients in buckets: no compute between the reductions.
  std::size_t last_compute = 0, first_reduction = p_after.instructions.size();
  for (std::size_t i = 0; i < p_after.instructions.size(); ++i) {
    const auto& in = p_after.instructions[i];
    if (in.kind == engine::Instruction::Kind::Compute)
      last_compute = i;
    if (in.kind == engine::Instruction::Kind::Submit && in.stream == engine::Stream::Gradients)
      first_reduction = std::min(first_reduction, i);
  }
  CHECK(first_reduction > last_compute);
  CHECK(engine::simulate_iteration_isolated(during).iteration_time_s <
        engine::simulate_iteration_isolated(after).iteration_time_s);
}

TEST_CASE("engine ZeRO-3 keeps gathered parameters within stage3_max_reuse_distance: 2 Psi per step under it, "
          "3 Psi when every use gathers",
          "[engine][zero]")
{
  const double psi = 200e6; // 40 layers of 5M: under DeepSpeed's 1e9, so forward's gathers serve backward
  const double ring_share = 7.0 / 8.0;
  auto kept = deepspeed(3, std::vector<double>(40, 5e6));
  auto released = kept;
  released.scenario.zero3_max_reuse_distance_params = 0;
  const double kept_psi = engine::simulate_iteration_isolated(kept).dp_bytes_sent_per_gpu / (ring_share * psi * 2);
  const double released_psi =
      engine::simulate_iteration_isolated(released).dp_bytes_sent_per_gpu / (ring_share * psi * 2);
  CHECK(kept_psi == Approx(2.0).epsilon(1e-9));
  CHECK(released_psi == Approx(3.0).epsilon(1e-9));
  // A distance of 20 layers: the last 10 layers' forward uses are within it of their backward uses
  // (2 x (39 - i) x 5M < 1e8 for i >= 30), so 10 of 40 backward gathers are saved.
  auto partly = kept;
  partly.scenario.zero3_max_reuse_distance_params = 1e8;
  const double partly_psi = engine::simulate_iteration_isolated(partly).dp_bytes_sent_per_gpu / (ring_share * psi * 2);
  CHECK(partly_psi == Approx(3.0 - 10.0 / 40.0).epsilon(1e-9));
}

TEST_CASE("engine ZeRO-3 never gathers modules under stage3_param_persistence_threshold", "[engine][zero]")
{
  // 20 layers of 5M and 20 of 50k (norms): only the large ones are partitioned and gathered.
  std::vector<double> layers;
  for (int i = 0; i < 20; ++i) {
    layers.push_back(5e6);
    layers.push_back(5e4);
  }
  auto s = deepspeed(3, layers);
  s.scenario.zero3_max_reuse_distance_params = 0;
  const auto program = program_of(s);
  const auto parameters = static_cast<std::size_t>(engine::Stream::Parameters);
  CHECK(program.submitted[parameters] == 2 * 20); // forward and backward, the 5M layers only
  s.scenario.zero3_persistence_threshold_params = 0;
  CHECK(program_of(s).submitted[parameters] == 2 * 40);
}

TEST_CASE("engine DeepSpeed's hooks: host time per module use and per gradient tensor, in closed form",
          "[engine][zero]")
{
  const int layers = 12;
  const int accumulation = 3;
  const model::ZeroHostCost cost;
  const double tensors = 2; // weight and bias of each trainable layer
  const double module_use = cost.module_hook_s + tensors * cost.tensor_hook_s; // one fetch or one release
  const double gradient_hooks = layers * tensors * cost.tensor_hook_s;         // one backward that reduces

  CHECK(program_of(deepspeed(0, std::vector<double>(layers, 5e6), accumulation)).host_s == 0); // DDP: C++ reducer
  CHECK(program_of(deepspeed(1, std::vector<double>(layers, 5e6), accumulation)).host_s == 0); // no hooks registered
  auto stage1_overlap = deepspeed(1, std::vector<double>(layers, 5e6), accumulation);
  stage1_overlap.scenario.overlap_comm = true; // hooks, on the micro-batch that reduces
  CHECK(program_of(stage1_overlap).host_s == Approx(gradient_hooks).epsilon(1e-12));
  CHECK(program_of(deepspeed(2, std::vector<double>(layers, 5e6), accumulation)).host_s ==
        Approx(accumulation * gradient_hooks).epsilon(1e-12));
  // ZeRO-3: a fetch and a release around each module's forward and backward use, plus the gradient hooks.
  CHECK(program_of(deepspeed(3, std::vector<double>(layers, 5e6), accumulation)).host_s ==
        Approx(accumulation * (layers * 4 * module_use + gradient_hooks)).epsilon(1e-12));
  // A step replayed as a CUDA graph runs no Python.
  auto graph = deepspeed(2, std::vector<double>(layers, 5e6), accumulation);
  graph.scenario.cuda_graph = true;
  CHECK(program_of(graph).host_s == 0);
}

TEST_CASE("engine ZeRO stages on the real traces: at the same overlap_comm, ZeRO-3 is never faster than ZeRO-2 "
          "and ZeRO-2 never faster than ZeRO-1",
          "[engine][zero]")
{
  struct Case {
    std::string workload;
    std::string platform;
    int gpus;
    int micro;
    int accumulation;
  };
  const std::vector<Case> cases = {
      {"bert-large", "dgx-h100-1node.yaml", 8, 16, 1},          {"bert-large", "dgx-h100-64node-fattree.yaml", 64, 16, 1},
      {"bert-large", "dgx-h100-64node-fattree.yaml", 64, 4, 4}, {"resnet50", "dgx-a100-1node.yaml", 8, 64, 2},
      {"retinanet", "dgx-h100-1node.yaml", 8, 8, 1},           {"stable-diffusion", "dgx-h100-1node.yaml", 8, 8, 1},
  };
  for (const auto& c : cases)
    for (const bool overlap : {false, true}) {
      double previous_s = 0;
      for (int stage = 1; stage <= 3; ++stage) {
        const auto path = std::filesystem::temp_directory_path() / ("gpuscale-zero-order-" + c.workload + ".yaml");
        std::ofstream(path) << "scenario:\n  name: order\n  platform: " << kSource << "/platforms/" << c.platform
                            << "\n  workload: " << kSource << "/workloads/" << c.workload << ".yaml\n  gpus: " << c.gpus
                            << "\n  global_batch_size: " << c.micro * c.gpus * c.accumulation
                            << "\n  micro_batch_size: " << c.micro << "\n  zero_stage: " << stage
                            << "\n  overlap_comm: " << (overlap ? "true" : "false") << "\n";
        const auto resolved = config::read_scenario(path.string());
        const double step_s = engine::simulate_iteration_isolated(resolved).iteration_time_s;
        INFO(c.workload << " on " << c.gpus << " GPUs, micro-batch " << c.micro << " x " << c.accumulation
                        << ", overlap_comm " << overlap << ": ZeRO-" << stage << " " << step_s << " s after "
                        << previous_s << " s");
        CHECK(step_s >= previous_s);
        previous_s = step_s;
      }
    }
}
