// Steady-state extension of repeated runs (engine/RepeatedUnits, engine/SteadyStateRun): the runs a
// step program repeats, the shortened program, the period check, and the extended step against the
// whole simulation on the cases where both run (ZeRO-3 layers, accumulated micro-batches, a 2:1
// oversubscribed fat tree, tensor parallelism).

#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/RepeatedUnits.hpp"
#include "sim/engine/SteadyStateRun.hpp"
#include "tests/support/SyntheticPlatforms.hpp"
#include "tests/support/SameResult.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace gpuscale;
using engine::Instruction;
using engine::Stream;
using engine::StepProgram;
using model::CollectiveAlgorithm;

namespace {

/// prefix (a compute), `units` x (gather next, compute, wait previous gather), suffix (wait all, sleep).
StepProgram prefetching_program(int units)
{
  StepProgram p;
  p.compute(1e9);
  std::size_t previous = p.submit(Stream::Parameters, engine::CollectiveOp::AllGather, 1e6);
  for (int u = 0; u < units; ++u) {
    const std::size_t next = p.submit(Stream::Parameters, engine::CollectiveOp::AllGather, 1e6);
    p.wait(Stream::Parameters, previous);
    p.compute(2e9);
    previous = next;
  }
  p.wait_all(Stream::Parameters);
  p.sleep(1e-3);
  return p;
}


/// The scenario simulated whole and extended, each in its own process.
struct WholeAndExtended {
  engine::IterationResult whole;
  engine::IterationResult extended;
};

WholeAndExtended run_both_ways(model::ResolvedScenario s)
{
  s.scenario.extend_steady_state = false;
  WholeAndExtended out;
  out.whole = engine::simulate_iteration_isolated(s);
  s.scenario.extend_steady_state = true;
  out.extended = engine::simulate_iteration_isolated(s);
  return out;
}

/// The scenario's runs are extended, and the result equals the whole simulation to 1e-9.
void check_extended_equals_whole(const model::ResolvedScenario& s)
{
  const auto both = run_both_ways(s);
  INFO(both.extended.step_simulation);
  CHECK(both.extended.step_simulation.rfind("steady state:", 0) == 0);
  CHECK(both.whole.step_simulation == "whole step simulated");
  testing::check_same_result(both.extended, both.whole, 1e-9);
}

} // namespace

TEST_CASE("engine::find_repeated_runs finds the prefetching unit and nothing in a program without repeats",
          "[engine][steady-state]")
{
  const StepProgram program = prefetching_program(40);
  const auto runs = engine::find_repeated_runs(program, 8, 16);
  REQUIRE(runs.size() == 1);
  // Each unit is submit, wait, compute; the waits differ in ticket but not counted back from what
  // has been submitted, so the unit repeats from the first one on.
  CHECK(runs[0].unit_length == 3);
  CHECK(runs[0].units >= 39);
  CHECK(runs[0].end() <= program.instructions.size());

  StepProgram distinct;
  for (int i = 1; i <= 50; ++i) {
    distinct.compute(1e9 * i);
    distinct.sleep(1e-3 * i);
  }
  CHECK(engine::find_repeated_runs(distinct, 8, 16).empty());
  CHECK(engine::find_repeated_runs(prefetching_program(10), 8, 16).empty()); // too few units to be worth it

  // Collectives submitted back to back, as ZeRO-1's reduce-scatters after the backward: the submits
  // take no time, the collectives queue on their stream, so no period fits both; not a run. The same
  // submits each after a kernel are one.
  StepProgram queued;
  queued.compute(1e9);
  for (int i = 0; i < 30; ++i)
    queued.submit(Stream::Gradients, engine::CollectiveOp::ReduceScatter, 1e6);
  queued.wait_all(Stream::Gradients);
  CHECK(engine::find_repeated_runs(queued, 8, 16).empty());
  StepProgram overlapped;
  for (int i = 0; i < 30; ++i) {
    overlapped.compute(1e9);
    overlapped.submit(Stream::Gradients, engine::CollectiveOp::ReduceScatter, 1e6);
  }
  overlapped.wait_all(Stream::Gradients);
  const auto overlapped_runs = engine::find_repeated_runs(overlapped, 8, 16);
  REQUIRE(overlapped_runs.size() == 1);
  CHECK(overlapped_runs[0].unit_length == 2);
}

TEST_CASE("engine::shorten keeps the first units and renumbers the tickets that follow", "[engine][steady-state]")
{
  const StepProgram program = prefetching_program(40);
  const auto runs = engine::find_repeated_runs(program, 8, 16);
  REQUIRE(runs.size() == 1);
  const auto shortened = engine::shorten(program, runs, {8});
  const auto& kept = shortened.runs.at(0);
  CHECK(kept.kept_units == 8);
  CHECK(kept.removed_units == runs[0].units - 8);
  const auto removed = static_cast<std::ptrdiff_t>(kept.removed_units);
  CHECK(static_cast<std::ptrdiff_t>(shortened.program.instructions.size()) ==
        static_cast<std::ptrdiff_t>(program.instructions.size()) - removed * 3);
  const auto params = static_cast<std::size_t>(Stream::Parameters);
  CHECK(shortened.program.submitted[params] == program.submitted[params] - kept.removed_units);
  CHECK(kept.tickets_per_unit[params] == 1);
  CHECK(shortened.program.compute_flop == Approx(program.compute_flop - static_cast<double>(removed) * 2e9));
  CHECK(shortened.program.sleep_s == program.sleep_s);
  // The final wait_all waits for the last gather, which is the last one of the shortened program.
  const auto& last_wait = shortened.program.instructions[shortened.program.instructions.size() - 2];
  REQUIRE(last_wait.kind == Instruction::Kind::Wait);
  CHECK(last_wait.ticket == shortened.program.submitted[params]);
  // Every wait of the shortened program waits for a collective it submitted before.
  std::size_t submitted = 0;
  for (const auto& in : shortened.program.instructions) {
    if (in.kind == Instruction::Kind::Submit)
      ++submitted;
    if (in.kind == Instruction::Kind::Wait)
      CHECK((in.ticket >= 1 && in.ticket <= submitted));
  }

  // A wait after the run for a collective deep inside it has no kept counterpart: refused.
  StepProgram deep = prefetching_program(40);
  deep.wait(Stream::Parameters, 20); // unit 18 of 40: neither kept nor among the last 8
  CHECK_THROWS_AS(engine::shorten(deep, engine::find_repeated_runs(deep, 8, 16), {8}), std::logic_error);
}

TEST_CASE("engine::extend_steady_runs refuses units whose events are not a shifted copy", "[engine][steady-state]")
{
  // Two GPUs, the prefetching program shortened to 8 units; events made by hand.
  const StepProgram program = prefetching_program(40);
  const auto shortened = engine::shorten(program, engine::find_repeated_runs(program, 8, 16), {8});
  const auto& run = shortened.runs.at(0);
  model::ResolvedScenario resolved =
      testing::synthetic_scenario(testing::synthetic_platform(1, 2, 200e9, 1e-6), testing::synthetic_workload({1e6}, 1e9),
                                  2, 1);
  const engine::StepSetup setup(resolved);
  const auto params = static_cast<std::size_t>(Stream::Parameters);
  const double unit_s = 0.02;
  auto make_events = [&](double drift_s) {
    std::vector<engine::RankEvents> events(2);
    for (auto& rank : events) {
      for (std::size_t i = 0; i < shortened.program.instructions.size(); ++i) {
        // inside the run: 1 ms per instruction within its unit, units unit_s apart (+ a drift)
        const std::size_t within = i < run.begin ? i : (i - run.begin) % run.original.unit_length;
        const double u = i < run.begin ? 0 : static_cast<double>((i - run.begin) / run.original.unit_length);
        rank.instruction_start_s.push_back(1e-3 * static_cast<double>(within) + u * unit_s + u * u * drift_s);
      }
      for (std::size_t t = 0; t < shortened.program.submitted[params]; ++t)
        rank.collectives[params].push_back({0.1 * static_cast<double>(t), 0.1 * static_cast<double>(t) + 0.01, 1e6});
    }
    // collectives by ticket: shift each unit's by the same period
    for (auto& rank : events)
      for (std::size_t t = run.first_ticket[params] - 1; t < shortened.program.submitted[params]; ++t) {
        const double u = static_cast<double>(t - (run.first_ticket[params] - 1));
        rank.collectives[params][t] = {u * unit_s + u * u * drift_s, u * unit_s + u * u * drift_s + 0.01, 1e6};
      }
    return events;
  };
  engine::StepTrace trace(2);
  for (auto& rank : trace) {
    rank.timeline.end_s = 1.0;
    rank.timeline.compute_s = 0.5;
    rank.streams[params] = {true, 0.2, 8e6};
  }
  const auto steady = engine::extend_steady_runs(setup, shortened, trace, make_events(0));
  REQUIRE(steady.steady == std::vector<bool>{true});
  REQUIRE(steady.extended);
  const double removed = static_cast<double>(run.removed_units);
  CHECK((*steady.extended)[0].timeline.end_s == Approx(1.0 + removed * unit_s).epsilon(1e-12));
  CHECK((*steady.extended)[1].streams[params].bytes_sent == Approx(8e6 + removed * 1e6));
  CHECK((*steady.extended)[1].streams[params].busy_s == Approx(0.2 + removed * 0.01));

  const auto drifting = engine::extend_steady_runs(setup, shortened, trace, make_events(1e-7));
  CHECK(drifting.steady == std::vector<bool>{false});
  CHECK_FALSE(drifting.extended);
}

TEST_CASE("engine steady-state extension equals the whole simulation to 1e-9", "[engine][steady-state]")
{
  SECTION("ZeRO-3 over 40 layers on 4 nodes: per-layer gathers prefetched, reduce-scatters overlapped")
  {
    const auto workload = testing::synthetic_workload(std::vector<double>(40, 2e6), 2e10);
    auto s = testing::synthetic_scenario(testing::synthetic_platform(4, 4, 200e9, 1e-6), workload, 16, 2);
    s.scenario.zero_stage = 3;
    s.scenario.zero3_prefetch_params = 1e6; // one group per layer
    s.scenario.collective = CollectiveAlgorithm::Auto;
    s.scenario.bucket_bytes = 8e6; // a reduce-scatter every second layer
    check_extended_equals_whole(s);
  }
  SECTION("ZeRO-2 with 32 accumulated micro-batches, each reduce-scattering its buckets: the micro-batch repeats")
  {
    // (Under DDP the first 31 micro-batches are one compute instruction already: nothing to extend.)
    const auto workload = testing::synthetic_workload(std::vector<double>(6, 5e6), 2e9);
    auto s = testing::synthetic_scenario(testing::synthetic_platform(2, 4, 200e9, 1e-6), workload, 8, 4, 32);
    s.scenario.zero_stage = 2;
    s.scenario.collective = CollectiveAlgorithm::Auto;
    check_extended_equals_whole(s);
  }
  SECTION("ZeRO-3 across the leaves of a 2:1 oversubscribed fat tree, gathers contending in the uplinks")
  {
    const auto workload = testing::synthetic_workload(std::vector<double>(32, 4e6), 1e10);
    auto s = testing::synthetic_scenario(
        testing::synthetic_platform(8, 4, 200e9, 1e-6, 25e9, model::FabricTopology::FatTree), workload, 32, 1);
    s.platform.fabric.oversubscription = 2.0;
    s.scenario.zero_stage = 3;
    s.scenario.zero3_prefetch_params = 2e6;
    s.scenario.collective = CollectiveAlgorithm::Ring;
    check_extended_equals_whole(s);
  }
  SECTION("tensor parallelism: blocking TP all-reduces inside every repeated layer")
  {
    auto workload = testing::synthetic_workload(std::vector<double>(24, 4e6), 2e10);
    for (auto& layer : workload.layers) {
      layer.tensor_parallel = model::TensorParallelMode::Row;
      layer.tp_comm_bytes_per_sample = 4e6;
    }
    auto s = testing::synthetic_scenario(testing::synthetic_platform(2, 4, 200e9, 1e-6), workload, 8, 2, 2);
    s.scenario.tensor_parallel = 4;
    s.scenario.collective = CollectiveAlgorithm::Auto;
    check_extended_equals_whole(s);
  }
}

TEST_CASE("engine steady-state extension: GPUs of two speeds are extended and uneven batch shares simulated whole",
          "[engine][steady-state]")
{
  // Half the GPUs at half the peak: the same instructions, ranks not in lockstep.
  const auto workload = testing::synthetic_workload(std::vector<double>(40, 2e6), 2e10);
  auto s = testing::synthetic_scenario(testing::synthetic_platform(1, 4, 200e9, 1e-6), workload, 8, 2);
  s.scenario.zero_stage = 3;
  s.scenario.zero3_prefetch_params = 1e6;
  testing::add_slow_nodes(s.platform, 1, 50e12);
  check_extended_equals_whole(s);

  // The slow GPUs run one micro-batch, the fast ones three: different programs (DDP: the
  // gradients are reduced once, after every rank's last micro-batch).
  s.scenario.zero_stage = 0;
  for (int rank = 0; rank < 8; ++rank)
    s.scenario.batch_per_rank.push_back({2, rank < 4 ? 3 : 1});
  s.scenario.global_batch_size = 4 * 2 * 3 + 4 * 2 * 1;
  const auto uneven = run_both_ways(s);
  CHECK(uneven.extended.step_simulation == "whole step simulated");
  CHECK(uneven.extended.iteration_time_s == uneven.whole.iteration_time_s);
}

TEST_CASE("engine steady-state extension does not try runs whose collectives fall behind their kernels",
          "[engine][steady-state]")
{
  // DDP over 24 layers on 2 nodes: each layer's backward (2 x 2e10 FLOP x 2 samples at 50 TFLOP/s,
  // 1.6 ms) submits its 8 MB gradient bucket to a per-step ring. With 25 GB/s NICs a bucket takes
  // about 0.6 ms and the run is extended; with 2 GB/s about 7 ms, the buckets queue ever longer behind
  // the kernels, and the step is simulated whole without a shortened try.
  const auto workload = testing::synthetic_workload(std::vector<double>(24, 4e6), 2e10);
  for (const double nic_Bps : {25e9, 2e9}) {
    auto s = testing::synthetic_scenario(testing::synthetic_platform(2, 4, 200e9, 1e-6, nic_Bps), workload, 8, 2);
    s.scenario.bucket_bytes = 8e6;
    const auto both = run_both_ways(s);
    INFO("NIC " << nic_Bps << " B/s: " << both.extended.step_simulation);
    if (nic_Bps == 25e9)
      CHECK(both.extended.step_simulation.rfind("steady state:", 0) == 0);
    else
      CHECK(both.extended.step_simulation == "whole step simulated");
    testing::check_same_result(both.extended, both.whole, 1e-9);
  }
}
