// Pipeline parallelism as Megatron-LM runs it: the schedules' structure (every pass once, sends
// matching receives), the 1F1B step's closed form (m + p - 1) x (F + B) when the sends cost nothing,
// the interleaved schedule's smaller bubble, memory per stage, and both executors and the fold
// agreeing where nothing contends.

#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/MemoryModel.hpp"
#include "sim/engine/StepDecomposition.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "sim/model/PipelineSchedule.hpp"
#include "sim/model/ScenarioResolution.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace gpuscale;
using Kind = model::PipelineAction::Kind;

namespace {

/// `blocks` blocks (repeat-group copies), each a row-parallel linear of `gemm_flop` per sample
/// forward (2x backward) whose output of `activation_bytes` per sample is what a stage sends on, and
/// a tiny residual add.
model::WorkloadTrace pipeline_blocks(int blocks, double gemm_flop, double activation_bytes)
{
  model::WorkloadTrace workload;
  workload.name = "pipeline-blocks";
  workload.precision = model::Precision::Bf16;
  for (int b = 0; b < blocks; ++b) {
    model::Layer linear;
    linear.name = "block" + std::to_string(b) + ".linear";
    linear.kind = model::LayerKind::Linear;
    linear.trainable_params = 1e3; // gradients and optimizer negligible beside the GEMMs
    linear.forward_flop_per_sample = gemm_flop;
    linear.backward_flop_per_sample = 2 * gemm_flop;
    linear.activation_bytes_per_sample = activation_bytes;
    linear.tensor_parallel = model::TensorParallelMode::Row;
    linear.tp_comm_bytes_per_sample = activation_bytes;
    linear.block = b;
    workload.layers.push_back(linear);
    model::Layer residual;
    residual.name = "block" + std::to_string(b) + ".residual";
    residual.kind = model::LayerKind::Elementwise;
    residual.forward_flop_per_sample = residual.backward_flop_per_sample = 1.0;
    residual.activation_bytes_per_sample = activation_bytes;
    residual.block = b;
    workload.layers.push_back(residual);
  }
  return workload;
}

struct PipelineCase {
  int blocks = 8;
  double gemm_flop = 1e10;
  double activation_bytes = 1.0; ///< per sample: tiny, so that the sends cost (almost) nothing
  int nodes = 1;
  int gpus_per_node = 4;
  int pp = 4;
  int virtual_pp = 1;
  int micro_batches = 8;
  double link_Bps = 1e15;
  double latency_s = 1e-12;
  model::StepExecutorKind executor = model::StepExecutorKind::Simgrid;
  bool fold = true;
};

model::ResolvedScenario scenario_of(const PipelineCase& c)
{
  const int gpus = c.nodes * c.gpus_per_node;
  auto r = testing::synthetic_scenario(
      testing::synthetic_platform(c.nodes, c.gpus_per_node, c.link_Bps, c.latency_s, c.link_Bps),
      pipeline_blocks(c.blocks, c.gemm_flop, c.activation_bytes), gpus, 1, c.micro_batches);
  r.platform.fabric.switch_latency_s = c.latency_s;
  for (auto& [name, node] : r.platform.node_types) {
    node.nic_latency_s = c.latency_s;
    node.pcie_latency_s = c.latency_s;
    node.pcie_bw_Bps = c.link_Bps;
  }
  auto& s = r.scenario;
  s.pipeline_parallel = c.pp;
  s.virtual_pipeline = c.virtual_pp;
  s.global_batch_size = c.micro_batches * s.data_parallel();
  s.executor = c.executor;
  s.fold_symmetric_ranks = c.fold;
  return r;
}

double step_s(const PipelineCase& c)
{
  return engine::simulate_iteration_isolated(scenario_of(c)).iteration_time_s;
}

/// One stage's blocks on one GPU: the forward + backward of one micro-batch (the step with two
/// micro-batches less the step with one), and what the step adds once (the optimizer).
struct StagePass {
  double pass_s = 0;
  double once_s = 0;
};

StagePass stage_pass(const PipelineCase& c)
{
  PipelineCase one = c;
  one.blocks = c.blocks / (c.pp * c.virtual_pp) * c.virtual_pp;
  one.pp = 1;
  one.virtual_pp = 1;
  one.micro_batches = 1;
  one.nodes = 1;
  one.gpus_per_node = 1;
  PipelineCase two = one;
  two.micro_batches = 2;
  const double one_s = step_s(one);
  const double pass_s = step_s(two) - one_s;
  return {pass_s, one_s - pass_s};
}

} // namespace

TEST_CASE("model::pipeline_schedule runs every pass once, forward first, and every send meets a receive",
          "[model][pipeline]")
{
  for (int p : {1, 2, 3, 4, 6})
    for (int v : {1, 2, 3})
      for (int groups : {1, 2, 3}) {
        if (v > 1 && p == 1)
          continue;
        const int m = p * groups + (v == 1 ? 1 : 0); // 1F1B takes any count; interleaving multiples of p
        INFO("p " << p << ", v " << v << ", m " << m);
        // (from, to) -> count, where to is the neighbour as seen by the sender.
        std::map<std::pair<int, int>, int> sends, receives;
        for (int s = 0; s < p; ++s) {
          std::set<std::pair<int, int>> forwards, backwards;
          int forwards_before_first_backward = -1;
          for (const model::PipelineAction& a : model::pipeline_schedule(s, p, v, m)) {
            if (a.kind == Kind::Forward) {
              CHECK(a.chunk % p == s);
              CHECK(forwards.emplace(a.chunk, a.micro_batch).second);
            } else if (a.kind == Kind::Backward) {
              if (forwards_before_first_backward < 0)
                forwards_before_first_backward = static_cast<int>(forwards.size());
              CHECK(forwards.count({a.chunk, a.micro_batch}) == 1);
              CHECK(backwards.emplace(a.chunk, a.micro_batch).second);
            } else {
              const int next = (s + 1) % p;
              const int previous = (s + p - 1) % p;
              sends[{s, next}] += a.send_next;
              sends[{s, previous}] += a.send_prev;
              receives[{next, s}] += a.recv_next;
              receives[{previous, s}] += a.recv_prev;
            }
          }
          CHECK(forwards.size() == static_cast<std::size_t>(m * v));
          CHECK(backwards.size() == static_cast<std::size_t>(m * v));
          const std::vector<int> in_flight = model::pipeline_passes_in_flight(s, p, v, m);
          CHECK(std::accumulate(in_flight.begin(), in_flight.end(), 0) == forwards_before_first_backward);
          if (v == 1) // Narayanan et al. 2021, sec. 2.2.1: stage s holds p - s micro-batches
            CHECK(forwards_before_first_backward == std::min(p - s, m));
          else // Megatron's warm-up, (p - s - 1) x 2 + (v - 1) x p chunk passes, and the first steady forward
            CHECK(forwards_before_first_backward ==
                  (m == p ? m * v : std::min((p - s - 1) * 2 + (v - 1) * p + 1, m * v)));
        }
        for (const auto& [pair, count] : sends)
          CHECK(receives[pair] == count);
        for (const auto& [pair, count] : receives)
          CHECK(sends[pair] == count);
      }
  CHECK_THROWS_AS(model::pipeline_schedule(0, 4, 2, 6), std::invalid_argument); // 6 micro-batches, 4 stages
}

TEST_CASE("model::pipeline_chunks cuts whole blocks, one fewer on the first and last chunk when uneven",
          "[model][pipeline]")
{
  // Llama 3 405B: 126 layers on 16 stages, one layer fewer on the first and the last (Dubey et al. 2024).
  const auto chunks = model::pipeline_chunks(pipeline_blocks(126, 1e9, 1e3), 16);
  REQUIRE(chunks.size() == 16);
  std::vector<std::size_t> blocks;
  for (const auto& c : chunks)
    blocks.push_back((c.end - c.begin) / 2);
  CHECK(blocks == std::vector<std::size_t>{7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7});
  CHECK(chunks.front().begin == 0);
  CHECK(chunks.back().end == 252);
  CHECK(model::pipeline_chunks(pipeline_blocks(4, 1e9, 1e3), 5).empty());
  // Layers outside blocks join the first and last chunk.
  auto workload = pipeline_blocks(4, 1e9, 1e3);
  model::Layer embedding;
  embedding.name = "embedding";
  workload.layers.insert(workload.layers.begin(), embedding);
  model::Layer head;
  head.name = "head";
  workload.layers.push_back(head);
  const auto two = model::pipeline_chunks(workload, 2);
  CHECK(two == std::vector<model::LayerRange>{{0, 5}, {5, 10}});
}

TEST_CASE("engine 1F1B step with free sends: (m + p - 1) x (forward + backward of one stage)", "[engine][pipeline]")
{
  for (int p : {2, 4})
    for (int m : {1, 4, 8}) {
      PipelineCase c;
      c.pp = p;
      c.gpus_per_node = p;
      c.micro_batches = m;
      const StagePass stage = stage_pass(c);
      INFO("p " << p << ", m " << m << ", one stage's pass " << stage.pass_s << " s");
      CHECK(step_s(c) == Approx((m + p - 1) * stage.pass_s + stage.once_s).epsilon(1e-7));
    }
}

TEST_CASE("engine interleaved schedule: the bubble shrinks by the chunks per stage", "[engine][pipeline]")
{
  // Narayanan et al. 2021, sec. 2.2.2: bubble (p - 1) x (F + B) / v, with F and B a whole stage's.
  for (int v : {1, 2, 4}) {
    PipelineCase c;
    c.blocks = 16;
    c.virtual_pp = v;
    c.micro_batches = 8;
    const StagePass stage = stage_pass(c);
    const double expected = c.micro_batches * stage.pass_s + (c.pp - 1) * stage.pass_s / v + stage.once_s;
    INFO("v " << v << ", one stage's pass " << stage.pass_s << " s");
    CHECK(step_s(c) == Approx(expected).epsilon(1e-7));
  }
}

TEST_CASE("engine pipeline sends: the step pays at least the sends across every stage boundary",
          "[engine][pipeline]")
{
  // 1F1B with real sends: micro-batch 0's forward crosses p - 1 boundaries and the last backward
  // crosses them back, each a blocking exchange of S bytes at the link rate.
  PipelineCase c;
  c.activation_bytes = 4e6;
  c.link_Bps = 50e9;
  c.latency_s = 1e-6;
  const StagePass stage = stage_pass(c);
  const double free_s = (c.micro_batches + c.pp - 1) * stage.pass_s + stage.once_s;
  const double send_s = c.activation_bytes / c.link_Bps;
  const double with_sends = step_s(c);
  CHECK(with_sends >= free_s + 2 * (c.pp - 1) * send_s);
  CHECK(with_sends <= free_s + 2 * (c.micro_batches + c.pp) * (send_s + 1e-5));
  // More bandwidth is never slower.
  PipelineCase faster = c;
  faster.link_Bps = 2 * c.link_Bps;
  CHECK(step_s(faster) <= with_sends);
}

TEST_CASE("engine pipeline: SimGrid and the analytical executor agree where nothing contends, folded or not",
          "[engine][pipeline]")
{
  for (int v : {1, 2}) {
    PipelineCase c;
    c.nodes = 8;
    c.gpus_per_node = 2;
    c.pp = 4; // four replicas of 4 stages on 2 nodes each: each send leaves its node; the fold
              // simulates two replicas (with one, a gradient ring's route would fold onto itself)
    c.virtual_pp = v;
    c.activation_bytes = 4e6;
    c.link_Bps = 50e9;
    c.latency_s = 1e-6;
    const double simgrid = step_s(c);
    PipelineCase unfolded = c;
    unfolded.fold = false;
    PipelineCase analytical = c;
    analytical.executor = model::StepExecutorKind::Analytical;
    INFO("v " << v);
    CHECK(step_s(unfolded) == Approx(simgrid).epsilon(1e-9));
    // The analytical executor times each send alone on its route; SimGrid shares links max-min among
    // the transfers and gradient collectives that overlap, which here moves the step by < 1e-4.
    CHECK(step_s(analytical) == Approx(simgrid).epsilon(1e-4));
    const auto folded = engine::simulate_iteration_isolated(scenario_of(c));
    INFO(folded.symmetry);
    CHECK(folded.symmetry.rfind("folded", 0) == 0);
    CHECK(folded.pipeline_bytes_sent_per_gpu > 0);
  }
}

TEST_CASE("engine::decompose_step describes the busiest stage: its busy time is the step's compute time",
          "[engine][pipeline]")
{
  // 9 blocks on 4 stages: 2, 2, 3, 2 blocks; stage 2 computes the most.
  PipelineCase c;
  c.blocks = 9;
  const auto r = scenario_of(c);
  const auto result = engine::simulate_iteration_isolated(r);
  CHECK(result.compute_time_s == Approx(engine::decompose_step(r).busy_time_s(r.scenario.efficiency)).epsilon(1e-9));
}

TEST_CASE("engine pipeline memory: a stage holds its chunks and the activations of its passes in flight",
          "[engine][pipeline]")
{
  PipelineCase c;
  c.activation_bytes = 1e6;
  const auto r = scenario_of(c);
  const auto& gpu = r.platform.gpu_types.at("test-gpu");
  const auto pipelined = engine::estimate_memory(r.workload, r.scenario, gpu, model::Precision::Bf16, 1, 1);
  // Stage 0 of 1F1B holds p micro-batches of its 2 blocks (linear and residual each keep 1 MB).
  CHECK(pipelined.activation_bytes == Approx(c.pp * 2 * 2 * 1e6));
  CHECK(pipelined.parameter_bytes == Approx(2 * 1e3 * 2));
  // Interleaved, stage 0 holds p v + p - 1 chunk passes (Korthikanti et al. 2022): p (1 + (p-1)/(p v))
  // micro-batches' worth of the stage.
  PipelineCase interleaved = c;
  interleaved.blocks = 16;
  interleaved.virtual_pp = 2;
  const auto ri = scenario_of(interleaved);
  const auto m = engine::estimate_memory(ri.workload, ri.scenario, gpu, model::Precision::Bf16, 1, 1);
  const double chunk_bytes = 2 * 2 * 1e6; // 2 blocks per chunk
  CHECK(m.activation_bytes == Approx((c.pp * 2 + c.pp - 1) * chunk_bytes));
}

TEST_CASE("model::resolve_scenario refuses pipelines Megatron would refuse", "[model][pipeline]")
{
  auto conflicts_of = [](const model::ResolvedScenario& r) {
    model::Scenario s = r.scenario;
    model::ScenarioInputs inputs;
    inputs.platform = &r.platform;
    inputs.workload = &r.workload;
    std::string text;
    for (const auto& c : model::resolve_scenario(s, inputs).conflicts)
      text += c.field + ": " + c.message + "\n";
    return text;
  };
  PipelineCase c;
  CHECK(conflicts_of(scenario_of(c)).empty());
  auto zero2 = scenario_of(c);
  zero2.scenario.zero_stage = 2;
  CHECK_THAT(conflicts_of(zero2), Catch::Contains("zero_stage: ZeRO-2 with pipeline parallelism"));
  auto too_many = scenario_of(c);
  too_many.scenario.virtual_pipeline = 4; // 16 chunks of 8 blocks
  CHECK_THAT(conflicts_of(too_many), Catch::Contains("pp: pp x virtual_pp = 4 x 4 model chunks"));
  PipelineCase uneven = c;
  uneven.virtual_pp = 2;
  uneven.micro_batches = 6;
  CHECK_THAT(conflicts_of(scenario_of(uneven)), Catch::Contains("virtual_pp: the interleaved schedule"));
  PipelineCase no_pipeline = c;
  no_pipeline.pp = 1;
  no_pipeline.virtual_pp = 2;
  CHECK_THAT(conflicts_of(scenario_of(no_pipeline)), Catch::Contains("virtual_pp: virtual_pp = 2"));
}
