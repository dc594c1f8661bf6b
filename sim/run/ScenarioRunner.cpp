#include "sim/run/ScenarioRunner.hpp"

#include "sim/run/Version.hpp"
#include "sim/config/FileDigest.hpp"
#include "sim/engine/SimgridConfig.hpp"
#include "sim/model/Recomputation.hpp"
#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <stdexcept>

namespace gpuscale::run {
namespace {

/// The accelerator types of the GPUs a run uses (model::Platform::groups_used) and the nodes they sit in.
std::set<std::string> gpu_types_used(const model::Platform& platform, int gpus, int& nodes)
{
  std::set<std::string> used;
  nodes = 0;
  for (const auto& use : platform.groups_used(gpus)) {
    used.insert(platform.node_type_of_group(use.group).gpu_type);
    nodes += use.nodes;
  }
  return used;
}

/// Per-GPU hardware figures the efficiency analysis needs (price, power, peak, host cores), averaged
/// over the GPUs the run uses, so a mixed platform gets a GPU-weighted mean.
void record_hardware_figures(const model::Platform& platform, int gpus, model::Precision precision,
                             results::RunRecord& r)
{
  std::set<std::string> generations;
  double price_sum = 0, tdp_sum = 0, peak_sum = 0, cores_sum = 0;
  bool every_gpu_priced = true;
  int remaining = gpus;
  for (const auto& use : platform.groups_used(gpus)) {
    const auto& type = platform.node_type_of_group(use.group);
    const auto& gpu = platform.gpu_type_of(type);
    for (int n = 0; n < use.nodes; ++n) { // node by node: the sums keep their order
      const int here = std::min(remaining, type.gpus_per_node);
      generations.insert(gpu.generation);
      every_gpu_priced = every_gpu_priced && gpu.price_usd_per_hour.has_value();
      price_sum += here * gpu.price_usd_per_hour.value_or(0.0);
      tdp_sum += here * gpu.tdp_w;
      peak_sum += here * gpu.peak_for(precision).value_or(0.0);
      cores_sum += here * static_cast<double>(type.host_cores()) / type.gpus_per_node;
      remaining -= here;
    }
  }
  const int counted = gpus - remaining;
  if (counted <= 0)
    return;
  for (const auto& generation : generations)
    r.gpu_generation += (r.gpu_generation.empty() ? "" : ",") + generation;
  r.price_usd_per_gpu_hour = every_gpu_priced ? price_sum / counted : 0.0;
  r.tdp_w = tdp_sum / counted;
  r.peak_flop_per_gpu_s = peak_sum / counted;
  r.host_cores_per_gpu = cores_sum / counted;
}

/// The "mb x accum" of every rank, comma-separated, for an uneven allocation; "" for a uniform one.
std::string describe_batch_per_rank(const std::vector<model::BatchShare>& shares)
{
  std::string text;
  for (const auto& share : shares)
    text += fmt::format("{}{}x{}", text.empty() ? "" : ",", share.micro_batch, share.accumulation);
  return text;
}

/// The knobs a scenario sets that the columns above do not already hold, and what exactly ran: the
/// inputs' contents by SHA-256 (an input without a file, as an MLPerf system built in memory, has "")
/// and the binary's version.
void record_scenario_knobs(const model::ResolvedScenario& resolved, results::RunRecord& r)
{
  const auto& s = resolved.scenario;
  r.tp = s.tensor_parallel;
  r.cp = s.context_parallel;
  r.pp = s.pipeline_parallel;
  r.virtual_pp = s.virtual_pipeline;
  r.sequence_parallel = s.sequence_parallel ? 1 : 0;
  r.cuda_graph = s.cuda_graph ? 1 : 0;
  r.tp_comm_overlap = s.tp_comm_overlap ? 1 : 0;
  r.bucket_bytes = s.reduce_bucket_bytes();
  r.overlap_comm = s.overlaps_communication() ? 1 : 0;
  r.zero3_prefetch_params = s.zero3_prefetch_params;
  r.input_pipeline = resolved.host_input ? resolved.host_input->pipeline : "";
  r.batch_per_rank = describe_batch_per_rank(s.batch_per_rank);
  std::error_code error;
  if (!s.platform_path.empty() && std::filesystem::is_regular_file(s.platform_path, error))
    r.platform_sha256 = config::file_sha256(s.platform_path);
  if (!s.workload_path.empty() && std::filesystem::is_regular_file(s.workload_path, error))
    r.workload_sha256 = config::file_sha256(s.workload_path);
  if (resolved.convergence && !s.convergence_path.empty() && std::filesystem::is_regular_file(s.convergence_path, error))
    r.convergence_sha256 = config::file_sha256(s.convergence_path);
  r.gpuscale_version = gpuscale_version();
}

/// The host side (can the CPUs feed the GPUs at the simulated pace?) and, from the stretched
/// iteration time, the MLPerf-style time to train.
void add_host_and_time_to_train(const model::ResolvedScenario& resolved, ScenarioOutcome& outcome)
{
  auto& r = outcome.record;
  const auto& s = resolved.scenario;
  r.effective_iter_time_s = r.iter_time_s;
  if (resolved.host_input && r.iter_time_s > 0) {
    const model::HostInputModel host(*resolved.host_input);
    // Every GPU of a replica consumes the replica's micro-batches (TP/CP ranks read the same samples).
    const double samples_per_gpu_s = s.global_batch_size / (r.iter_time_s * s.data_parallel());
    double worst_slowdown = 1;
    for (const auto& use : resolved.platform.groups_used(s.gpus)) {
      const auto& node = resolved.platform.node_type_of_group(use.group);
      const auto load = host.evaluate(node, samples_per_gpu_s);
      if (load.slowdown >= worst_slowdown) {
        worst_slowdown = load.slowdown;
        outcome.host = load;
      }
    }
    if (outcome.host) {
      r.input_bound = outcome.host->input_bound ? 1 : 0;
      r.host_utilisation = outcome.host->host_utilisation;
      r.host_max_samples_per_s = outcome.host->max_samples_per_s;
      r.effective_iter_time_s = r.iter_time_s * outcome.host->slowdown;
    }
  }
  if (resolved.convergence && r.effective_iter_time_s > 0) {
    outcome.time_to_train =
        model::estimate_time_to_train(*resolved.convergence, {r.effective_iter_time_s, s.global_batch_size});
    const auto& t = *outcome.time_to_train;
    r.time_to_train_min = units::to_minutes(t.total_s);
    r.ttt_training_min = units::to_minutes(t.training_s);
    r.ttt_evaluation_min = units::to_minutes(t.evaluation_s);
    r.ttt_overhead_min = units::to_minutes(t.overhead_s);
    r.samples_to_converge = t.samples_to_converge;
    r.convergence_extrapolated = t.extrapolated ? 1 : 0;
    r.samples_to_converge_low = t.samples_to_converge_low;
    r.samples_to_converge_high = t.samples_to_converge_high;
  }
}

} // namespace

TightestMemory tightest_memory(const model::Platform& platform, const model::WorkloadTrace& workload,
                               const model::Scenario& s, model::Precision precision)
{
  TightestMemory tightest;
  int nodes = 0;
  const auto used = gpu_types_used(platform, s.gpus, nodes);
  std::vector<std::string> rank_types;
  for (std::size_t g = 0; g < platform.node_groups.size(); ++g) {
    const auto& type = platform.node_type_of_group(g);
    for (int i = 0; i < platform.node_groups[g].count * type.gpus_per_node; ++i)
      rank_types.push_back(type.gpu_type);
  }
  double worst_headroom = 0;
  bool first = true;
  for (const auto& name : used) {
    const auto& gpu = platform.gpu_types.at(name);
    // The largest micro-batch any GPU of this type runs (uneven allocations differ per GPU).
    int micro = s.batch_per_rank.empty() ? s.micro_batch_size : 0;
    for (int rank = 0; rank < static_cast<int>(s.batch_per_rank.size()); ++rank)
      if (rank_types[static_cast<std::size_t>(rank)] == name)
        micro = std::max(micro, s.batch_per_rank[static_cast<std::size_t>(rank)].micro_batch);
    const auto estimate =
        engine::estimate_memory(workload, s, gpu, precision, s.data_parallel(), micro);
    const double headroom = estimate.capacity_bytes - estimate.total_bytes();
    if (first || headroom < worst_headroom) {
      worst_headroom = headroom;
      tightest.memory = estimate;
      tightest.gpu = name;
      first = false;
    }
  }
  return tightest;
}

ScenarioOutcome run_scenario(const model::ResolvedScenario& resolved, bool isolated)
{
  const auto& s = resolved.scenario;
  ScenarioOutcome outcome;
  auto& r = outcome.record;
  int nodes = 0;
  const auto used = gpu_types_used(resolved.platform, s.gpus, nodes);
  r.scenario = s.name;
  r.platform = resolved.platform.name;
  r.workload = resolved.workload.name;
  for (const auto& name : used)
    r.gpu_models += (r.gpu_models.empty() ? "" : ",") + name;
  r.precision = model::to_string(resolved.precision());
  r.collective = model::to_string(s.collective);
  r.collective_used = model::to_string(s.collective); // replaced by the resolved one after simulation
  r.simgrid_config = engine::describe_simgrid_config(s.simgrid);
  r.executor = model::to_string(s.executor);
  r.gpus = s.gpus;
  r.nodes = nodes;
  r.global_batch_size = s.global_batch_size;
  r.micro_batch_size = s.micro_batch_size;
  r.grad_accum_steps = s.gradient_accumulation_steps();
  if (!s.batch_per_rank.empty()) { // uneven: the most micro-batches any rank runs (all of them: batch_per_rank)
    r.grad_accum_steps = 0;
    for (const auto& share : s.batch_per_rank)
      r.grad_accum_steps = std::max<std::int64_t>(r.grad_accum_steps, share.accumulation);
  }
  r.zero_stage = s.zero_stage;
  r.activation_checkpointing = s.activation_checkpointing ? 1 : 0;
  r.recomputed_blocks = model::recomputed_block_count(resolved.workload, s);
  r.checkpoint_blocks = model::checkpoint_block_count(resolved.workload);
  r.compute_efficiency = s.efficiency.compute;
  if (const auto used = resolved.platform.groups_used(s.gpus); !used.empty()) {
    const auto& node = resolved.platform.node_type_of_group(used.front().group);
    r.scale_up_link_fraction =
        s.links.of(model::scale_up_link_class(node.fabric), resolved.platform.gpu_type_of(node).generation);
  }
  r.nic_link_fraction = s.links.of(model::LinkClass::Nic, "");
  r.collective_fixed_s = s.links.collective_fixed_s;
  r.memory_efficiency = s.efficiency.memory;
  r.step_overhead_s = s.efficiency.step_overhead_s;
  r.tcp_gamma_bytes = s.simgrid.tcp_gamma_bytes;
  record_scenario_knobs(resolved, r);
  record_hardware_figures(resolved.platform, s.gpus, resolved.precision(), r);

  // Memory: every GPU type must fit; report the one with the least headroom.
  auto tightest = tightest_memory(resolved.platform, resolved.workload, s, resolved.precision());
  outcome.memory = tightest.memory;
  outcome.tightest_gpu = tightest.gpu;
  const auto& m = outcome.memory;
  r.mem_per_gpu_bytes = m.total_bytes();
  r.mem_capacity_bytes = m.capacity_bytes;
  r.mem_params_bytes = m.parameter_bytes;
  r.mem_frozen_bytes = m.frozen_bytes;
  r.mem_grads_bytes = m.gradient_bytes;
  r.mem_optimizer_bytes = m.optimizer_bytes;
  r.mem_activations_bytes = m.activation_bytes;
  r.mem_buffers_bytes = m.buffer_bytes;
  if (!m.fits()) {
    r.outcome = results::Outcome::Infeasible;
    r.infeasible_reason = "out of memory: " + m.describe_shortfall(outcome.tightest_gpu);
    return outcome;
  }

  outcome.iteration =
      isolated ? engine::simulate_iteration_isolated(resolved) : engine::simulate_iteration(resolved);
  const auto& it = *outcome.iteration;
  r.collective_used = it.collective_used;
  r.iter_time_s = it.iteration_time_s;
  r.samples_per_s = it.samples_per_s;
  r.compute_time_s = it.compute_time_s;
  r.comm_time_s = it.comm_time_s;
  r.exposed_comm_s = it.exposed_comm_s;
  r.zero_hook_s = it.host_time_s;
  r.bytes_sent_per_gpu = it.bytes_sent_per_gpu;
  r.pipeline_wait_s = it.pipeline_wait_s;
  r.pipeline_bytes_per_gpu = it.pipeline_bytes_sent_per_gpu;
  add_host_and_time_to_train(resolved, outcome);
  if (resolved.calibration == nullptr)
    outcome.no_interval_reason = "the scenario states its own efficiencies (efficiency:), not the calibration's";
  else if ((outcome.uncertainty = uncertainty::assess(*resolved.calibration, resolved, r, &outcome.no_interval_reason)))
    uncertainty::write_interval(*outcome.uncertainty, r);
  return outcome;
}

void check_simulation_size(int accelerators, const std::string& what)
{
  if (accelerators > kMaxSimulatedAccelerators)
    throw std::invalid_argument(what + " has " + std::to_string(accelerators) + " accelerators; gpuscale simulates at most " +
                                std::to_string(kMaxSimulatedAccelerators) +
                                " in one run (time and memory grow faster than linearly beyond)");
}

} // namespace gpuscale::run
