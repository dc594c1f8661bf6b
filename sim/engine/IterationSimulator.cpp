#include "sim/engine/IterationSimulator.hpp"

#include "sim/engine/CommStream.hpp"
#include "sim/engine/GpuActor.hpp"
#include "sim/engine/IsolatedRun.hpp"
#include "sim/engine/SimgridConfig.hpp"
#include "sim/engine/SimgridPlatform.hpp"
#include "sim/engine/TopologyGraph.hpp"
#include "sim/engine/ParallelLayout.hpp"
#include "sim/engine/ScheduleBuilder.hpp"
#include "sim/engine/collectives/CollectiveDispatch.hpp"
#include "sim/engine/collectives/CommunicatorLayout.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {

namespace {

/// One communicator per group, over the platform's hosts.
struct GroupCommunicators {
  std::vector<CommunicatorLayout> layouts;
  std::vector<Communicator> comms;
};

std::vector<CommunicatorLayout> layouts_of(const std::vector<std::vector<int>>& groups, const TopologyGraph& topology)
{
  std::vector<CommunicatorLayout> layouts;
  for (const auto& group : groups) {
    layouts.push_back(make_communicator_layout(group, topology.gpu_node));
    mark_reduction_hardware(layouts.back(), topology.gpu_node, topology.node_in_switch_reduction,
                            topology.fabric_in_network_reduction);
  }
  return layouts;
}

std::vector<Communicator> communicators_of(const std::string& prefix, const std::vector<CommunicatorLayout>& layouts,
                                           const SimgridPlatform& platform)
{
  std::vector<Communicator> comms;
  comms.reserve(layouts.size());
  for (std::size_t g = 0; g < layouts.size(); ++g)
    comms.push_back(make_communicator(prefix + std::to_string(g), layouts[g], platform.gpu_hosts));
  return comms;
}

/// The index of `rank` inside its group's member list.
int position_in(const std::vector<int>& group, int rank)
{
  for (std::size_t i = 0; i < group.size(); ++i)
    if (group[i] == rank)
      return static_cast<int>(i);
  return -1;
}

} // namespace

IterationResult simulate_iteration(const model::ResolvedScenario& resolved)
{
  const auto& scenario = resolved.scenario;
  const int p = scenario.gpus;
  const model::Precision precision = resolved.precision();

  // The engine parses --log from argv; the network model is set explicitly below.
  int argc = 2;
  char arg0[] = "gpuscale";
  char arg1[] = "--log=root.thres:critical";
  char* argv[] = {arg0, arg1, nullptr};
  sg4::Engine engine(&argc, argv);
  for (const auto& item : simgrid_config_items(scenario.simgrid))
    sg4::Engine::set_config(item);

  const TopologyGraph topology = build_topology(resolved.platform, p);
  const ParallelLayout parallel = make_parallel_layout(scenario);
  const auto dp_layouts = layouts_of(parallel.data_parallel_groups, topology);
  const auto tp_layouts = layouts_of(parallel.tensor_parallel_groups, topology);
  const auto cp_layouts = layouts_of(parallel.context_parallel_groups, topology);

  SimgridPlatformSpec spec;
  std::vector<StepProgram> programs;
  std::vector<std::size_t> program_of_rank;
  std::map<std::string, std::size_t> program_of_type;
  for (int rank = 0; rank < p; ++rank) {
    const std::string& type_name = topology.gpu_type[static_cast<std::size_t>(rank)];
    const model::GpuType& gpu = resolved.platform.gpu_types.at(type_name);
    spec.gpu_speed_flop_per_s.push_back(gpu.peak_for(precision).value() * scenario.efficiency.compute);
    // One program per distinct (GPU type, batch share): uneven allocations give GPUs their own.
    const model::BatchShare share = scenario.batch_of_rank(rank);
    const std::string key = type_name + "/" + std::to_string(share.micro_batch) + "x" + std::to_string(share.accumulation);
    auto [it, inserted] = program_of_type.try_emplace(key, programs.size());
    if (inserted)
      programs.push_back(build_step_program(resolved.workload, scenario, gpu, precision, share));
    program_of_rank.push_back(it->second);
  }
  spec.network_efficiency = scenario.efficiency.network;
  const bool dp_may_use_halving_doubling = scenario.collective == model::CollectiveAlgorithm::HalvingDoubling ||
                                           scenario.collective == model::CollectiveAlgorithm::Auto;
  for (const auto& layout : dp_layouts)
    for (const auto& pair : layout.route_pairs(dp_may_use_halving_doubling))
      spec.routes.push_back(pair);
  for (const auto* layouts : {&tp_layouts, &cp_layouts})
    for (const auto& layout : *layouts)
      for (const auto& pair : layout.route_pairs(true))
        spec.routes.push_back(pair);
  const SimgridPlatform platform = build_simgrid_platform(topology, spec);

  // Gradient and parameter streams run concurrently over the same ranks (ZeRO-3 prefetch next to
  // gradient reduce-scatter): separate communicators, so their messages never mix.
  const auto dp_gradients = communicators_of("dp-grad", dp_layouts, platform);
  const auto dp_parameters = communicators_of("dp-param", dp_layouts, platform);
  const auto tp_comms = communicators_of("tp", tp_layouts, platform);
  const auto cp_comms = communicators_of("cp", cp_layouts, platform);

  std::vector<std::unique_ptr<CommStream>> streams;
  std::vector<std::array<CommStream*, kStreamCount>> streams_of_rank(static_cast<std::size_t>(p));
  std::vector<GpuTimeline> timelines(static_cast<std::size_t>(p));
  for (int rank = 0; rank < p; ++rank) {
    sg4::Host* host = platform.gpu_hosts[static_cast<std::size_t>(rank)];
    const std::string suffix = std::to_string(rank);
    const StepProgram& program = programs[program_of_rank[static_cast<std::size_t>(rank)]];
    auto add_stream = [&](Stream which, const std::vector<std::vector<int>>& groups, const std::vector<Communicator>& comms,
                          int group, model::CollectiveAlgorithm algorithm) {
      if (program.submitted[static_cast<std::size_t>(which)] == 0)
        return;
      const auto g = static_cast<std::size_t>(group);
      streams.push_back(std::make_unique<CommStream>(comms[g], position_in(groups[g], rank), algorithm));
      streams_of_rank[static_cast<std::size_t>(rank)][static_cast<std::size_t>(which)] = streams.back().get();
      sg4::Actor::create("stream" + std::to_string(static_cast<int>(which)) + "-" + suffix, host,
                         [stream = streams.back().get()] { (*stream)(); });
    };
    const int dp_group = parallel.data_parallel_group_of(rank);
    add_stream(Stream::Gradients, parallel.data_parallel_groups, dp_gradients, dp_group, scenario.collective);
    add_stream(Stream::Parameters, parallel.data_parallel_groups, dp_parameters, dp_group, scenario.collective);
    add_stream(Stream::TensorParallel, parallel.tensor_parallel_groups, tp_comms, parallel.tensor_parallel_group_of(rank),
               model::CollectiveAlgorithm::Auto);
    add_stream(Stream::ContextParallel, parallel.context_parallel_groups, cp_comms,
               parallel.context_parallel_group_of(rank), model::CollectiveAlgorithm::Auto);
    sg4::Actor::create("gpu" + suffix, host,
                       GpuActor(program, streams_of_rank[static_cast<std::size_t>(rank)],
                                timelines[static_cast<std::size_t>(rank)]));
  }
  engine.run();

  IterationResult result;
  result.gpus = p;
  const CollectiveOp gradient_op = scenario.zero_stage == 0 ? CollectiveOp::AllReduce : CollectiveOp::ReduceScatter;
  const auto gradient_algorithm = choose_algorithm(scenario.collective, gradient_op, parallel.dp,
                                                  dp_layouts.front().hierarchical, scenario.bucket_bytes);
  const CommunicatorLayout& dp = dp_layouts.front();
  result.collective_used = describe_algorithm(
      gradient_algorithm, choose_switch_reduction(scenario.collective, gradient_algorithm, gradient_op, parallel.dp,
                                                  dp.in_switch_reduction, dp.in_network_reduction));
  result.simgrid_config = describe_simgrid_config(scenario.simgrid);
  for (int rank = 0; rank < p; ++rank) {
    const GpuTimeline& t = timelines[static_cast<std::size_t>(rank)];
    result.iteration_time_s = std::max(result.iteration_time_s, t.end_s);
    result.compute_time_s = std::max(result.compute_time_s, t.compute_s);
    result.exposed_comm_s = std::max(result.exposed_comm_s, t.end_s - t.compute_s);
    double busy = 0;
    double sent = 0;
    double dp_sent = 0;
    for (std::size_t s = 0; s < kStreamCount; ++s) {
      const CommStream* stream = streams_of_rank[static_cast<std::size_t>(rank)][s];
      if (stream == nullptr)
        continue;
      busy += stream->busy_s();
      sent += stream->counters().bytes_sent;
      if (s == static_cast<std::size_t>(Stream::Gradients) || s == static_cast<std::size_t>(Stream::Parameters))
        dp_sent += stream->counters().bytes_sent;
    }
    result.comm_time_s = std::max(result.comm_time_s, busy);
    result.bytes_sent_per_gpu = std::max(result.bytes_sent_per_gpu, sent);
    result.dp_bytes_sent_per_gpu = std::max(result.dp_bytes_sent_per_gpu, dp_sent);
  }
  // A host-side cost no GPU work overlaps: every rank waits for it (calibrated; 0 by default).
  result.iteration_time_s += scenario.efficiency.step_overhead_s;
  if (result.iteration_time_s > 0)
    result.samples_per_s = scenario.global_batch_size / result.iteration_time_s;
  return result;
}

} // namespace gpuscale::engine

namespace gpuscale::engine {
namespace {

// IterationResult crosses the process boundary as text: one field per line, doubles in %a (exact).
std::string serialize(const IterationResult& r)
{
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, "%d\n%a\n%a\n%a\n%a\n%a\n%a\n%a\n", r.gpus, r.iteration_time_s,
                r.compute_time_s, r.comm_time_s, r.exposed_comm_s, r.bytes_sent_per_gpu, r.dp_bytes_sent_per_gpu,
                r.samples_per_s);
  return std::string(buffer) + r.collective_used + "\n" + r.simgrid_config + "\n";
}

IterationResult deserialize(const std::string& text)
{
  IterationResult r;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%d\n%la\n%la\n%la\n%la\n%la\n%la\n%la\n%n", &r.gpus, &r.iteration_time_s,
                  &r.compute_time_s, &r.comm_time_s, &r.exposed_comm_s, &r.bytes_sent_per_gpu, &r.dp_bytes_sent_per_gpu,
                  &r.samples_per_s, &consumed) != 8)
    throw std::runtime_error("malformed simulation result from child process");
  const std::string rest = text.substr(static_cast<std::size_t>(consumed));
  const auto newline = rest.find('\n');
  r.collective_used = rest.substr(0, newline);
  r.simgrid_config = rest.substr(newline + 1, rest.size() - newline - 2);
  return r;
}

} // namespace

IterationResult simulate_iteration_isolated(const model::ResolvedScenario& scenario)
{
  return deserialize(run_isolated([&] { return serialize(simulate_iteration(scenario)); }));
}

} // namespace gpuscale::engine
