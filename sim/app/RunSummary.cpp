#include "sim/app/RunSummary.hpp"

#include "sim/units/Quantity.hpp"
#include "sim/model/PredictionInterval.hpp"

#include <cmath>
#include <fmt/format.h>

namespace gpuscale::app {

std::string format_setup_line(const model::Scenario& s, const results::RunRecord& r)
{
  std::string batch;
  if (!s.batch_per_rank.empty()) {
    // Uneven: every GPU is its own replica (the reader refuses tp/cp here); runs of equal shares counted.
    std::vector<std::pair<model::BatchShare, int>> groups;
    for (const auto& share : s.batch_per_rank)
      if (!groups.empty() && groups.back().first == share)
        ++groups.back().second;
      else
        groups.emplace_back(share, 1);
    for (const auto& [share, count] : groups)
      batch += fmt::format("{}{} GPU(s) x {} x {}", batch.empty() ? "" : " + ", count, share.micro_batch,
                           share.accumulation);
    batch += " (GPUs x micro-batch x accumulation steps, uneven)";
  } else if (s.model_parallel() == 1) {
    batch = fmt::format("micro-batch {} x {} GPUs x {} accumulation step(s)", s.micro_batch_size, s.gpus,
                        s.gradient_accumulation_steps());
  } else {
    // Tensor- and context-parallel ranks of a replica work on the same samples.
    batch = fmt::format("micro-batch {} x {} replica(s) x {} accumulation step(s); {} GPUs = {} replica(s) x tp {} x cp {}",
                        s.micro_batch_size, s.data_parallel(), s.gradient_accumulation_steps(), s.gpus,
                        s.data_parallel(), s.tensor_parallel, s.context_parallel);
    if (s.pipeline_parallel > 1)
      batch += fmt::format(" x pp {}{}", s.pipeline_parallel,
                           s.virtual_pipeline > 1 ? fmt::format(" ({} chunks per stage, interleaved)", s.virtual_pipeline)
                                                  : std::string(" (1F1B)"));
  }
  return fmt::format("setup      ZeRO-{}, {}, global batch {} = {}{}{}, collective {} ({}), overlap_comm {}\n",
                     r.zero_stage, r.precision, s.global_batch_size, batch,
                     s.sequence_parallel ? ", sequence parallel" : "", checkpointing_phrase(r), r.collective_used,
                     r.collective, r.overlap_comm != 0 ? "on" : "off");
}

std::string checkpointing_phrase(const results::RunRecord& r)
{
  if (r.activation_checkpointing == 0)
    return "";
  if (r.recomputed_blocks >= r.checkpoint_blocks)
    return ", activation checkpointing";
  return fmt::format(", activation checkpointing ({} of {} blocks)", r.recomputed_blocks, r.checkpoint_blocks);
}

namespace {

/// The allocation line of a scenario with uneven per-GPU batches; empty when every GPU takes the same share.
std::string format_allocation_line(const model::Scenario& scenario)
{
  if (scenario.batch_per_rank.empty())
    return {};
  std::string shares;
  for (std::size_t rank = 0; rank < scenario.batch_per_rank.size(); ++rank) {
    const auto& share = scenario.batch_per_rank[rank];
    if (rank == 0 || !(share == scenario.batch_per_rank[rank - 1]))
      shares += fmt::format("{}GPU {}: {} x {}", shares.empty() ? "" : ", ", rank, share.micro_batch, share.accumulation);
  }
  return fmt::format("allocation uneven (micro-batch x accumulation from the GPU named on): {}\n", shares);
}

/// The memory line: the total per GPU of the tightest GPU type and its parts.
std::string format_memory_line(const run::ScenarioOutcome& outcome)
{
  using units::format_bytes;
  const auto& m = outcome.memory;
  return fmt::format("memory     {} of {} per GPU ({}): params {}, frozen {}, grads {}, optimizer {}, "
                     "activations {}, buffers {}, reserve {}\n",
                     format_bytes(m.total_bytes()), format_bytes(m.capacity_bytes), outcome.tightest_gpu,
                     format_bytes(m.parameter_bytes), format_bytes(m.frozen_bytes), format_bytes(m.gradient_bytes),
                     format_bytes(m.optimizer_bytes), format_bytes(m.activation_bytes), format_bytes(m.buffer_bytes),
                     format_bytes(m.reserve_bytes));
}

/// The time-to-train lines, with the extrapolation note where the batch lies outside the reference points.
std::string format_time_to_train(const model::ResolvedScenario& resolved, const run::ScenarioOutcome& outcome)
{
  const auto& r = outcome.record;
  std::string out;
  if (outcome.time_to_train) {
    const auto& t = *outcome.time_to_train;
    out += fmt::format("time to train {:.2f} min: training {:.2f} min ({:.0f} steps, {:.3g} samples to converge), "
                       "evaluation {:.2f} min ({:.1f} evaluations), run-start overhead {:.2f} min\n",
                       units::to_minutes(t.total_s), units::to_minutes(t.training_s), t.iterations,
                       t.samples_to_converge, units::to_minutes(t.evaluation_s), t.evaluations,
                       units::to_minutes(t.overhead_s));
    // Said where it moves the samples by more than the 4 digits printed (ResNet's 0.99995 is not).
    if (resolved.convergence && std::abs(resolved.convergence->samples_factor - 1) >= 5e-4)
      out += fmt::format("  note: samples to converge are the convergence table's times {:.4g}, the calibration's "
                         "convergence factor (how far MLPerf submissions' runs train from it; docs/CALIBRATION.md)\n",
                         resolved.convergence->samples_factor);
    if (t.extrapolated) {
      const auto model = resolved.convergence->model();
      const auto& curve = model.curve();
      out += fmt::format("  note: global batch {} lies outside the reference convergence points [{}, {}]; ",
                         r.global_batch_size, curve.min_global_batch_size(), curve.max_global_batch_size());
      if (model.fit())
        out += fmt::format("samples to converge EXTRAPOLATED {}: {:.3g} [{:.3g}, {:.3g}] ({:.0f} % interval), "
                           "time to train {:.2f} min [{:.2f}, {:.2f}]\n",
                           r.global_batch_size > curve.max_global_batch_size()
                               ? fmt::format("with the critical-batch-size fit (B_noise {:.4g})",
                                             model.fit()->noise_batch_size())
                               : std::string("as the smallest point's"),
                           t.samples_to_converge, t.samples_to_converge_low, t.samples_to_converge_high,
                           100 * model::kConvergenceIntervalLevel, units::to_minutes(t.total_s),
                           units::to_minutes(t.total_low_s), units::to_minutes(t.total_high_s));
      else
        out += fmt::format("samples to converge taken from the nearest one (too few points for a fit, interval "
                           "unknown)\n");
    }
  } else {
    out += "time to train: no convergence table for this workload (iteration figures only)\n";
  }
  return out;
}

} // namespace

std::string format_interval_line(const run::ScenarioOutcome& outcome)
{
  const auto& r = outcome.record;
  if (!outcome.uncertainty)
    return fmt::format("interval   none: {}\n", outcome.no_interval_reason);
  std::string ttt;
  if (r.time_to_train_min > 0)
    ttt = std::isfinite(r.time_to_train_low_min)
              ? fmt::format(", time to train {:.2f} to {:.2f} min", r.time_to_train_low_min, r.time_to_train_high_min)
              : std::string(", time to train unknown (the convergence table cannot bound its extrapolation)");
  return fmt::format("interval   {:.0f} %: iteration {} to {}{} (regime {}, parameter log-sd {:.3f}; docs/UNCERTAINTY.md)\n",
                     model::kIntervalLevel * 100, units::format_seconds(r.iter_time_low_s),
                     units::format_seconds(r.iter_time_high_s), ttt, r.interval_regime, r.parameter_log_sd);
}

std::string format_run_summary(const model::ResolvedScenario& resolved, const run::ScenarioOutcome& outcome)
{
  using units::format_bytes;
  using units::format_seconds;
  const auto& r = outcome.record;
  std::string out;
  out += fmt::format("scenario   {}\n", r.scenario);
  out += fmt::format("platform   {} ({} GPUs used of {}, {} node(s), {})\n", r.platform, r.gpus,
                     resolved.platform.gpu_count(), r.nodes, r.gpu_models);
  out += fmt::format("workload   {} ({:.1f} M trainable + {:.1f} M frozen parameters, {:.2f} GFLOP fwd/sample)\n",
                     r.workload, resolved.workload.trainable_params() / 1e6, resolved.workload.frozen_params() / 1e6,
                     resolved.workload.forward_flop_per_sample() / 1e9);
  out += format_setup_line(resolved.scenario, r);
  out += format_allocation_line(resolved.scenario);
  out += format_memory_line(outcome);
  if (r.outcome == results::Outcome::Infeasible) {
    out += fmt::format("outcome    INFEASIBLE: {}\n", r.infeasible_reason);
    return out;
  }
  out += fmt::format("iteration  {} ({:.1f} samples/s)\n", format_seconds(r.iter_time_s), r.samples_per_s);
  if (r.zero_hook_s > 0) // DeepSpeed's Python hooks: host time the GPU waits for, counted in compute
    out += fmt::format("  compute        {} (of which {} host time in DeepSpeed's ZeRO hooks)\n",
                       format_seconds(r.compute_time_s), format_seconds(r.zero_hook_s));
  else
    out += fmt::format("  compute        {}\n", format_seconds(r.compute_time_s));
  out += fmt::format("  communication  {} ({} sent per GPU)\n", format_seconds(r.comm_time_s),
                     format_bytes(r.bytes_sent_per_gpu));
  out += fmt::format("  exposed comm.  {} ({:.1f}% of the iteration)\n", format_seconds(r.exposed_comm_s),
                     r.iter_time_s > 0 ? 100.0 * r.exposed_comm_s / r.iter_time_s : 0.0);
  if (r.pp > 1) // in exposed comm.: the bubble and the sends, which only the schedule tells apart
    out += fmt::format("  pipeline       {} waiting in exchanges, bubble included ({} sent to neighbours per GPU)\n",
                       format_seconds(r.pipeline_wait_s), format_bytes(r.pipeline_bytes_per_gpu));
  if (outcome.host) {
    const auto& h = *outcome.host;
    out += fmt::format("host       {} input pipeline: {:.0f} samples/s per GPU possible, {:.0f} needed, "
                       "{:.0f}% of the loader cores busy{}\n",
                       resolved.host_input->pipeline, h.max_samples_per_s, h.gpu_samples_per_s,
                       100 * h.host_utilisation,
                       h.input_bound ? fmt::format(" -> INPUT BOUND, step stretched to {}",
                                                   format_seconds(r.effective_iter_time_s))
                                     : "");
  }
  out += format_time_to_train(resolved, outcome);
  out += format_interval_line(outcome);
  out += fmt::format("simgrid    {}\n", r.simgrid_config);
  if (outcome.iteration && outcome.iteration->step_simulation != engine::kWholeStepSimulated)
    out += fmt::format("step       {}\n", outcome.iteration->step_simulation);
  if (outcome.iteration && outcome.iteration->symmetry.rfind("folded:", 0) == 0)
    out += fmt::format("symmetry   {}\n", outcome.iteration->symmetry);
  if (r.executor == "analytical")
    out += "executor   analytical: alpha-beta along the routes, no link contention\n";
  return out;
}

} // namespace gpuscale::app
