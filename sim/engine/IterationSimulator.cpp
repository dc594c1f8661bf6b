#include "sim/engine/IterationSimulator.hpp"

#include "sim/engine/AnalyticalExecutor.hpp"
#include "sim/engine/IsolatedRun.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "sim/engine/SimgridConfig.hpp"
#include "sim/engine/SimgridExecutor.hpp"
#include "sim/engine/StepSetup.hpp"
#include "sim/engine/SteadyStateRun.hpp"
#include "sim/engine/SymmetryFold.hpp"
#include "sim/engine/collectives/CollectiveDispatch.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace gpuscale::engine {

namespace {

/// The data-parallel gradient algorithm as results record it ("auto" resolved for the bucket size).
std::string gradient_algorithm_used(const StepSetup& setup)
{
  const model::Scenario& scenario = *setup.scenario;
  const CollectiveOp gradient_op = gradient_collective(scenario.zero());
  const CommunicatorLayout& dp = setup.dp_layouts.front();
  if (dp.size() < 2) // nothing to plan: the algorithm auto resolves to
    return model::to_string(choose_algorithm(scenario.collective, dp.hierarchical));
  return plan_collective(gradient_op, scenario.collective, dp.shape(), scenario.reduce_bucket_bytes()).algorithm;
}

/// The slowest GPU's figures of the executed step.
IterationResult summarize(const StepSetup& setup, const StepTrace& trace)
{
  const model::Scenario& scenario = *setup.scenario;
  IterationResult result;
  result.gpus = setup.gpus();
  result.collective_used = gradient_algorithm_used(setup);
  result.simgrid_config = describe_simgrid_config(scenario.simgrid);
  for (const StepProgram& program : setup.programs)
    result.host_time_s = std::max(result.host_time_s, program.host_s);
  for (const RankTrace& rank : trace) {
    const GpuTimeline& t = rank.timeline;
    result.iteration_time_s = std::max(result.iteration_time_s, t.end_s);
    result.compute_time_s = std::max(result.compute_time_s, t.compute_s);
    result.exposed_comm_s = std::max(result.exposed_comm_s, t.end_s - t.compute_s);
    double busy = 0;
    double sent = 0;
    double dp_sent = 0;
    for (std::size_t s = 0; s < kStreamCount; ++s) {
      const StreamTrace& stream = rank.streams[s];
      if (!stream.used)
        continue;
      busy += stream.busy_s;
      sent += stream.bytes_sent;
      if (s == static_cast<std::size_t>(Stream::Gradients) || s == static_cast<std::size_t>(Stream::Parameters))
        dp_sent += stream.bytes_sent;
    }
    result.comm_time_s = std::max(result.comm_time_s, busy);
    sent += rank.pipeline.bytes_sent;
    result.pipeline_bytes_sent_per_gpu = std::max(result.pipeline_bytes_sent_per_gpu, rank.pipeline.bytes_sent);
    result.pipeline_wait_s = std::max(result.pipeline_wait_s, rank.pipeline.busy_s);
    result.bytes_sent_per_gpu = std::max(result.bytes_sent_per_gpu, sent);
    result.dp_bytes_sent_per_gpu = std::max(result.dp_bytes_sent_per_gpu, dp_sent);
  }
  // A host-side cost no GPU work overlaps: every rank waits for it (calibrated; 0 by default).
  result.iteration_time_s += scenario.efficiency.step_overhead_s;
  if (result.iteration_time_s > 0)
    result.samples_per_s = scenario.global_batch_size / result.iteration_time_s;
  return result;
}

} // namespace

StepExecutor executor_for(model::StepExecutorKind kind)
{
  return kind == model::StepExecutorKind::Analytical ? &execute_analytically
                                                      : static_cast<StepExecutor>(&execute_on_simgrid);
}

IterationResult simulate_iteration(const model::ResolvedScenario& resolved, model::StepExecutorKind executor)
{
  StepSetup setup(resolved);
  // Looked for once, for the steady state's tries and the final run alike.
  const SymmetryFold fold = executor == model::StepExecutorKind::Simgrid ? find_symmetry_fold(setup)
                                                                         : refused_fold("analytical executor");
  setup.fold = &fold;
  if (executor == model::StepExecutorKind::Simgrid && resolved.scenario.extend_steady_state) {
    SteadyStateReport report;
    const StepTrace trace = execute_with_steady_state(setup, &report);
    IterationResult result = summarize(setup, trace);
    result.step_simulation = report.describe();
    result.symmetry = fold.describe();
    return result;
  }
  IterationResult result = summarize(setup, executor_for(executor)(setup));
  result.step_simulation = kWholeStepSimulated;
  result.symmetry = fold.describe();
  return result;
}

IterationResult simulate_iteration(const model::ResolvedScenario& resolved)
{
  return simulate_iteration(resolved, resolved.scenario.executor);
}

} // namespace gpuscale::engine

namespace gpuscale::engine {
namespace {

// IterationResult crosses the process boundary as text: one field per line, doubles in %a (exact).
std::string serialize(const IterationResult& r)
{
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, "%d\n%a\n%a\n%a\n%a\n%a\n%a\n%a\n%a\n%a\n%a\n", r.gpus, r.iteration_time_s,
                r.compute_time_s, r.host_time_s, r.comm_time_s, r.exposed_comm_s, r.bytes_sent_per_gpu,
                r.dp_bytes_sent_per_gpu, r.pipeline_bytes_sent_per_gpu, r.pipeline_wait_s, r.samples_per_s);
  return std::string(buffer) + r.collective_used + "\n" + r.step_simulation + "\n" + r.symmetry + "\n" +
         r.simgrid_config + "\n";
}

IterationResult deserialize(const std::string& text)
{
  IterationResult r;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%d\n%la\n%la\n%la\n%la\n%la\n%la\n%la\n%la\n%la\n%la\n%n", &r.gpus,
                  &r.iteration_time_s, &r.compute_time_s, &r.host_time_s, &r.comm_time_s, &r.exposed_comm_s,
                  &r.bytes_sent_per_gpu, &r.dp_bytes_sent_per_gpu, &r.pipeline_bytes_sent_per_gpu, &r.pipeline_wait_s,
                  &r.samples_per_s, &consumed) != 11)
    throw std::runtime_error("malformed simulation result from child process");
  const std::string rest = text.substr(static_cast<std::size_t>(consumed));
  const auto newline = rest.find('\n');
  const auto second = rest.find('\n', newline + 1);
  const auto third = rest.find('\n', second + 1);
  r.collective_used = rest.substr(0, newline);
  r.step_simulation = rest.substr(newline + 1, second - newline - 1);
  r.symmetry = rest.substr(second + 1, third - second - 1);
  r.simgrid_config = rest.substr(third + 1, rest.size() - third - 2);
  return r;
}

} // namespace

IterationResult simulate_iteration_isolated(const model::ResolvedScenario& scenario, model::StepExecutorKind executor)
{
  if (executor == model::StepExecutorKind::Analytical) // no SimGrid engine: no process of its own needed
    return simulate_iteration(scenario, executor);
  return deserialize(run_isolated([&] { return serialize(simulate_iteration(scenario, executor)); }));
}

IterationResult simulate_iteration_isolated(const model::ResolvedScenario& scenario)
{
  return simulate_iteration_isolated(scenario, scenario.scenario.executor);
}

} // namespace gpuscale::engine
