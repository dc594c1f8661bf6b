// Tensor-parallel collectives as Megatron-LM issues them: blocking in forward and in the forward
// that activation checkpointing reruns in backward; in backward the input-gradient reduction of a
// trained column-parallel linear overlaps its weight-gradient GEMM (and, under sequence parallelism,
// the input all-gather its input-gradient GEMM). Bytes are counted from what the simulated
// collectives sent; times from the analytical executor, whose collectives are exact α-β plans.

#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace gpuscale;
using engine::CollectiveOp;

namespace {

/// `blocks` checkpointed sub-blocks, each a column-parallel linear (its input gradient reduced in
/// backward: Megatron's f), a row-parallel linear (its output reduced in forward: g), both
/// recomputed, and a kept residual add closing the block (kept tiny, so that GEMMs and collectives
/// are the whole step). Each linear runs `gemm_flop` per sample
/// forward; trained, its backward is input-gradient + weight-gradient GEMM (2x), frozen only the
/// input gradient (1x). `tensor_bytes` per sample is the sub-block's input/output tensor.
model::WorkloadTrace tp_blocks(int blocks, bool trained, double gemm_flop, double tensor_bytes)
{
  model::WorkloadTrace workload;
  workload.name = "tp-blocks";
  workload.precision = model::Precision::Bf16;
  for (int b = 0; b < blocks; ++b) {
    for (auto mode : {model::TensorParallelMode::Column, model::TensorParallelMode::Row}) {
      model::Layer linear;
      linear.name = "block" + std::to_string(b) + (mode == model::TensorParallelMode::Column ? ".up" : ".down");
      linear.kind = model::LayerKind::Linear;
      (trained ? linear.trainable_params : linear.frozen_params) = 4e6;
      linear.forward_flop_per_sample = gemm_flop;
      linear.backward_flop_per_sample = (trained ? 2 : 1) * gemm_flop;
      linear.activation_bytes_per_sample = tensor_bytes;
      linear.recomputed = true;
      linear.tensor_parallel = mode;
      linear.tp_comm_bytes_per_sample = tensor_bytes;
      workload.layers.push_back(linear);
    }
    model::Layer residual;
    residual.name = "block" + std::to_string(b) + ".residual";
    residual.kind = model::LayerKind::Elementwise;
    residual.forward_flop_per_sample = residual.backward_flop_per_sample = 1e3; // negligible beside the GEMMs
    residual.activation_bytes_per_sample = 1e3;
    workload.layers.push_back(residual);
  }
  return workload;
}

struct TpCase {
  int blocks = 2;
  bool trained = true;
  double gemm_flop = 1e9;
  double tensor_bytes = 4e6;
  int gpus = 8;
  int tp = 4;
  int micro = 2;
  int accumulation = 3;
  bool sequence_parallel = false;
  bool checkpointing = false;
  int zero_stage = 0;
  bool overlap = false; ///< tp_comm_overlap (sequence parallelism only)
};

model::ResolvedScenario scenario_of(const TpCase& c)
{
  auto s = testing::synthetic_scenario(testing::synthetic_platform(1, c.gpus, 200e9, 1e-6),
                                       tp_blocks(c.blocks, c.trained, c.gemm_flop, c.tensor_bytes), c.gpus, c.micro,
                                       c.accumulation);
  s.scenario.tensor_parallel = c.tp;
  s.scenario.global_batch_size = c.micro * (c.gpus / c.tp) * c.accumulation;
  s.scenario.sequence_parallel = c.sequence_parallel;
  s.scenario.activation_checkpointing = c.checkpointing;
  s.scenario.zero_stage = c.zero_stage;
  s.scenario.tp_comm_overlap = c.overlap;
  return s;
}

/// The step program of one sequence-parallel micro-batch of `c` on the synthetic GPU.
engine::StepProgram sequence_parallel_program(TpCase c)
{
  c.sequence_parallel = true;
  c.accumulation = 1;
  const auto s = scenario_of(c);
  return engine::build_step_program(s.workload, s.scenario, testing::synthetic_gpu(), model::Precision::Bf16);
}

/// Bytes one GPU sent in TP collectives in one step (no CP here: everything not data-parallel).
double tp_bytes_sent(const engine::IterationResult& r)
{
  return r.bytes_sent_per_gpu - r.dp_bytes_sent_per_gpu;
}

/// The TP stream's collectives in program order.
std::vector<CollectiveOp> tp_collectives(const engine::StepProgram& program)
{
  std::vector<CollectiveOp> ops;
  for (const auto& instruction : program.instructions)
    if (instruction.kind == engine::Instruction::Kind::Submit && instruction.stream == engine::Stream::TensorParallel)
      ops.push_back(instruction.op);
  return ops;
}

} // namespace

TEST_CASE("engine TP bytes per step: forward + recomputed forward + backward with checkpointing", "[engine][tp]")
{
  // A ring rank sends (t-1)/t of the tensor in a reduce-scatter or an all-gather, twice that in an
  // all-reduce. Per sub-block and micro-batch, in units u = (t-1)/t x micro x tensor bytes:
  //   forward             g: all-reduce, or reduce-scatter + all-gather          2u
  //   recomputed forward  the same again                                         2u (checkpointing only)
  //   backward            f: all-reduce                                          2u
  //                       SP: all-gather of g's gradient + reduce-scatter of f,   2u
  //                       + the all-gather of a trained column layer's input     +1u
  for (bool sequence_parallel : {false, true})
    for (bool trained : {true, false})
      for (bool checkpointing : {false, true}) {
        TpCase c;
        c.sequence_parallel = sequence_parallel;
        c.trained = trained;
        c.checkpointing = checkpointing;
        const double u = (c.tp - 1.0) / c.tp * c.micro * c.tensor_bytes;
        const double backward = 2 + (sequence_parallel && trained ? 1 : 0);
        const double expected = c.blocks * c.accumulation * u * (2 + (checkpointing ? 2 : 0) + backward);
        INFO("sequence parallel " << sequence_parallel << ", trained " << trained << ", checkpointing "
                                  << checkpointing);
        CHECK(tp_bytes_sent(engine::simulate_iteration_isolated(scenario_of(c))) ==
              Approx(expected).epsilon(1e-9));
      }
}

TEST_CASE("engine a recomputed block replays its TP collectives where its backward starts", "[engine][tp]")
{
  TpCase c;
  c.checkpointing = true;
  const auto program = sequence_parallel_program(c);
  using Op = CollectiveOp;
  std::vector<Op> expected;
  const auto forward = [&expected] { // g of a row layer, f of the next column layer
    expected.push_back(Op::ReduceScatter);
    expected.push_back(Op::AllGather);
  };
  for (int b = 0; b < c.blocks; ++b)
    forward();
  for (int b = 0; b < c.blocks; ++b) { // last block first, each rerunning its forward before its backward
    forward();
    expected.push_back(Op::AllGather);     // g's gradient, before the row layer
    expected.push_back(Op::AllGather);     // column layer: its sharded input again, for the weight gradient
    expected.push_back(Op::ReduceScatter); // f's gradient
  }
  CHECK(tp_collectives(program) == expected);

  // Backward runs no GEMM before the last block's recomputed forward: between the forward's last TP
  // collective and the first recomputed one run only the last residual add (forward and backward)
  // and the recomputed column + row GEMMs of that block.
  const auto& ins = program.instructions;
  std::vector<std::size_t> tp_submits;
  for (std::size_t i = 0; i < ins.size(); ++i)
    if (ins[i].kind == engine::Instruction::Kind::Submit && ins[i].stream == engine::Stream::TensorParallel)
      tp_submits.push_back(i);
  double between_flop = 0;
  for (std::size_t i = tp_submits[2 * c.blocks - 1]; i < tp_submits[2 * c.blocks]; ++i)
    if (ins[i].kind == engine::Instruction::Kind::Compute)
      between_flop += ins[i].amount;
  const double gemms = 2 * c.gemm_flop * c.micro / c.tp;
  const double residual_kernels = between_flop - gemms; // memory-bound adds, as FLOPs at the GPU's rate
  CHECK(residual_kernels > 0);
  CHECK(residual_kernels < 1e-3 * gemms);
}

TEST_CASE("engine TP collectives block in forward and hide behind the weight-gradient GEMM in backward",
          "[engine][tp]")
{
  // One TP group (tp = gpus = 4, no data parallelism). With frozen linears every TP collective is
  // exposed: per sub-block and micro-batch 2 all-reduces (t_ar each), or 4 reduce-scatters /
  // all-gathers (t_h each) under SP. Trained, the column layer's backward hides them behind its
  // GEMMs, each t_g = gemm x micro / tp / (peak x efficiency):
  //   no SP  exposed = t_ar + max(0, t_ar - t_g)
  //   SP     exposed = 3 t_h + max(0, t_h - t_g) (input all-gather || dgrad) + max(0, t_h - t_g) (reduce-scatter || wgrad)
  for (bool sequence_parallel : {false, true})
    for (double gemm_flop : {1e9, 1e11}) { // the collective partly hidden, fully hidden
      TpCase c;
      c.gpus = c.tp = 4;
      c.gemm_flop = gemm_flop;
      c.sequence_parallel = sequence_parallel;
      TpCase frozen = c;
      frozen.trained = false;
      const auto a = model::StepExecutorKind::Analytical;
      const double exposed_frozen = engine::simulate_iteration(scenario_of(frozen), a).exposed_comm_s;
      const double exposed_trained = engine::simulate_iteration(scenario_of(c), a).exposed_comm_s;
      const double per_sub_block = exposed_frozen / (c.blocks * c.accumulation);
      const auto gpu = testing::synthetic_gpu();
      const double t_g = gemm_flop * c.micro / c.tp / (gpu.peak_flop_per_s.at(model::Precision::Bf16) * 0.5);
      double expected = 0;
      if (sequence_parallel) {
        const double t_h = per_sub_block / 4;
        expected = 3 * t_h + 2 * std::max(0.0, t_h - t_g);
      } else {
        const double t_ar = per_sub_block / 2;
        expected = t_ar + std::max(0.0, t_ar - t_g);
      }
      INFO("sequence parallel " << sequence_parallel << ", GEMM " << gemm_flop << " FLOP, t_g " << t_g << " s");
      CHECK(exposed_trained / (c.blocks * c.accumulation) == Approx(expected).epsilon(1e-9));
      if (gemm_flop == 1e9) // the partly hidden case must really be partial
        CHECK(expected > per_sub_block * (sequence_parallel ? 3.0 / 4 : 1.0 / 2) * (1 + 1e-3));
    }
}

TEST_CASE("engine: activation checkpointing never lowers TP bytes or step time (generated configurations)",
          "[engine][tp][property]")
{
  std::mt19937 random(20261201);
  std::uniform_int_distribution<int> blocks(1, 5);
  std::uniform_int_distribution<int> tp_log2(1, 3);
  std::uniform_int_distribution<int> micro(1, 4);
  std::uniform_int_distribution<int> accumulation(1, 3);
  std::uniform_int_distribution<int> stage(0, 3);
  std::uniform_int_distribution<int> coin(0, 1);
  std::uniform_real_distribution<double> log10_gemm(8.0, 11.0);
  std::uniform_real_distribution<double> log10_bytes(5.0, 7.5);
  for (int trial = 0; trial < 24; ++trial) {
    TpCase c;
    c.blocks = blocks(random);
    c.tp = 1 << tp_log2(random);
    c.micro = micro(random);
    c.accumulation = accumulation(random);
    c.zero_stage = stage(random);
    c.sequence_parallel = coin(random) == 1;
    c.trained = coin(random) == 1;
    c.gemm_flop = std::pow(10.0, log10_gemm(random));
    c.tensor_bytes = std::pow(10.0, log10_bytes(random));
    TpCase recomputed = c;
    recomputed.checkpointing = true;
    // Every fourth trial on SimGrid (contention between the TP and DP streams included), the rest analytical.
    const auto executor = trial % 4 == 0 ? model::StepExecutorKind::Simgrid : model::StepExecutorKind::Analytical;
    const auto off = engine::simulate_iteration_isolated(scenario_of(c), executor);
    const auto on = engine::simulate_iteration_isolated(scenario_of(recomputed), executor);
    INFO("trial " << trial << ": tp " << c.tp << ", SP " << c.sequence_parallel << ", trained " << c.trained
                  << ", ZeRO-" << c.zero_stage << ", " << c.blocks << " blocks, micro " << c.micro << " x "
                  << c.accumulation << "; TP bytes " << tp_bytes_sent(off) << " -> " << tp_bytes_sent(on)
                  << ", step " << off.iteration_time_s << " s -> " << on.iteration_time_s << " s");
    CHECK(tp_bytes_sent(on) > tp_bytes_sent(off));
    CHECK(on.iteration_time_s >= off.iteration_time_s * (1 - 1e-12));
  }
}

TEST_CASE("engine tp_comm_overlap moves the same TP bytes and leaves only what the GEMMs cannot hide exposed",
          "[engine][tp]")
{
  // Frozen linears under sequence parallelism, one TP group, analytical executor. Blocking, each
  // sub-block exposes 4 collectives of the tensor B per micro-batch (forward reduce-scatter and
  // all-gather; backward all-gather of g's gradient, reduce-scatter of f's), t_h each. Overlapped
  // behind GEMMs long enough to hide them, what stays exposed per micro-batch is each
  // reduce-scatter's last chunk (a reduce-scatter of B/tp, t_last; two per sub-block) and the
  // all-gather the last row layer leaves with no column layer after it (t_h, once per forward).
  TpCase c;
  c.gpus = c.tp = 4;
  c.trained = false;
  c.sequence_parallel = true;
  c.gemm_flop = 1e11; // t_g far above t_h
  const auto a = model::StepExecutorKind::Analytical;
  const auto exposed_per_sub_block = [&](TpCase x) {
    return engine::simulate_iteration(scenario_of(x), a).exposed_comm_s / (x.blocks * x.accumulation);
  };
  const double t_h = exposed_per_sub_block(c) / 4;
  TpCase chunk = c;
  chunk.tensor_bytes = c.tensor_bytes / c.tp;
  const double t_last = exposed_per_sub_block(chunk) / 4;
  TpCase overlapped = c;
  overlapped.overlap = true;
  const auto on = engine::simulate_iteration(scenario_of(overlapped), a);
  const auto off = engine::simulate_iteration(scenario_of(c), a);
  CHECK(tp_bytes_sent(on) == Approx(tp_bytes_sent(off)).epsilon(1e-12));
  CHECK(on.exposed_comm_s / c.accumulation == Approx(c.blocks * 2 * t_last + t_h).epsilon(1e-9));
  CHECK(on.iteration_time_s < off.iteration_time_s);

  // Without a GEMM to hide behind (tiny linears), overlapping cannot help: the collectives are
  // exposed as before, the reduce-scatters in two parts.
  TpCase bare = overlapped;
  bare.gemm_flop = 1;
  TpCase bare_off = bare;
  bare_off.overlap = false;
  const double on_bare = engine::simulate_iteration(scenario_of(bare), a).exposed_comm_s;
  const double off_bare = engine::simulate_iteration(scenario_of(bare_off), a).exposed_comm_s;
  CHECK(on_bare >= off_bare * (1 - 1e-9));
}

TEST_CASE("engine tp_comm_overlap: the all-gather moves to the column layer that consumes it", "[engine][tp]")
{
  TpCase c;
  c.overlap = true;
  const auto program = sequence_parallel_program(c);
  // Forward of block b: [column b: all-gather left by row b-1] row b: reduce-scatter in two parts;
  // the last block's gather runs blocking at the end of the forward pass.
  std::vector<CollectiveOp> ops = tp_collectives(program);
  using Op = CollectiveOp;
  const std::vector<Op> forward{Op::ReduceScatter, Op::ReduceScatter, Op::AllGather, Op::ReduceScatter,
                                Op::ReduceScatter, Op::AllGather};
  REQUIRE(ops.size() >= forward.size());
  CHECK(std::vector<Op>(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(forward.size())) == forward);
  // The first all-gather is in flight while block 1's column GEMM runs: a compute instruction sits
  // between its submit and its wait.
  const auto& ins = program.instructions;
  std::size_t submit = ins.size();
  for (std::size_t i = 0; i < ins.size(); ++i)
    if (ins[i].kind == engine::Instruction::Kind::Submit && ins[i].stream == engine::Stream::TensorParallel &&
        ins[i].op == Op::AllGather) {
      submit = i;
      break;
    }
  REQUIRE(submit + 2 < ins.size());
  CHECK(ins[submit + 1].kind == engine::Instruction::Kind::Compute);
}
