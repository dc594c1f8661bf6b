#include "sim/engine/IterationSimulator.hpp"

#include "sim/engine/CommStream.hpp"
#include "sim/engine/GpuActor.hpp"
#include "sim/engine/IsolatedRun.hpp"
#include "sim/engine/SimgridConfig.hpp"
#include "sim/engine/SimgridPlatform.hpp"
#include "sim/engine/TopologyGraph.hpp"
#include "sim/engine/TrainingSchedule.hpp"
#include "sim/engine/collectives/FlowRingAllReduce.hpp"
#include "sim/engine/collectives/RingAllReduce.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {

model::CollectiveAlgorithm resolve_collective(model::CollectiveAlgorithm requested, int gpus)
{
  if (requested != model::CollectiveAlgorithm::Auto)
    return requested;
  return gpus <= 64 ? model::CollectiveAlgorithm::Ring : model::CollectiveAlgorithm::RingFlow;
}

IterationResult simulate_iteration(const model::ResolvedScenario& resolved)
{
  const auto& scenario = resolved.scenario;
  if (scenario.zero_stage != 0)
    throw std::runtime_error("ZeRO stage " + std::to_string(scenario.zero_stage) +
                             " is not simulated yet: only stage 0 (DDP) has a communication schedule");
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
  SimgridPlatformSpec spec;
  std::vector<StepSchedule> schedules;
  std::vector<std::size_t> schedule_of_rank;
  std::map<std::string, std::size_t> schedule_of_type;
  for (int rank = 0; rank < p; ++rank) {
    const std::string& type_name = topology.gpu_type[static_cast<std::size_t>(rank)];
    const model::GpuType& gpu = resolved.platform.gpu_types.at(type_name);
    spec.gpu_speed_flop_per_s.push_back(gpu.peak_for(precision).value() * scenario.efficiency.compute);
    auto [it, inserted] = schedule_of_type.try_emplace(type_name, schedules.size());
    if (inserted)
      schedules.push_back(build_ddp_schedule(resolved.workload, scenario, gpu, precision));
    schedule_of_rank.push_back(it->second);
  }
  spec.network_efficiency = scenario.efficiency.network;
  for (int rank = 0; rank < p && p > 1; ++rank)
    spec.routes.emplace_back(rank, (rank + 1) % p);
  const SimgridPlatform platform = build_simgrid_platform(topology, spec);

  const model::CollectiveAlgorithm algorithm = resolve_collective(scenario.collective, p);
  const Communicator world = make_ring_communicator("dp", platform.gpu_hosts);
  std::vector<std::unique_ptr<CommStream>> streams;
  std::vector<GpuTimeline> timelines(static_cast<std::size_t>(p));
  for (int rank = 0; rank < p; ++rank) {
    CommStream::Collective collective = [&world, rank, algorithm](double bytes, CollectiveCounters& counters) {
      if (algorithm == model::CollectiveAlgorithm::RingFlow)
        flow_ring_all_reduce(world, rank, bytes, counters);
      else
        ring_all_reduce(world, rank, bytes, counters);
    };
    streams.push_back(std::make_unique<CommStream>(std::move(collective)));
    sg4::Host* host = platform.gpu_hosts[static_cast<std::size_t>(rank)];
    const std::string suffix = std::to_string(rank);
    sg4::Actor::create("comm" + suffix, host, [stream = streams.back().get()] { (*stream)(); });
    sg4::Actor::create("gpu" + suffix, host,
                       GpuActor(schedules[schedule_of_rank[static_cast<std::size_t>(rank)]], *streams.back(),
                                timelines[static_cast<std::size_t>(rank)]));
  }
  engine.run();

  IterationResult result;
  result.gpus = p;
  result.collective_used = model::to_string(algorithm);
  result.simgrid_config = describe_simgrid_config(scenario.simgrid);
  for (int rank = 0; rank < p; ++rank) {
    const GpuTimeline& t = timelines[static_cast<std::size_t>(rank)];
    result.iteration_time_s = std::max(result.iteration_time_s, t.end_s);
    result.compute_time_s = std::max(result.compute_time_s, t.compute_s);
    result.exposed_comm_s = std::max(result.exposed_comm_s, t.comm_done_s - t.backward_end_s);
    result.comm_time_s = std::max(result.comm_time_s, streams[static_cast<std::size_t>(rank)]->busy_s());
    result.bytes_sent_per_gpu =
        std::max(result.bytes_sent_per_gpu, streams[static_cast<std::size_t>(rank)]->counters().bytes_sent);
  }
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
  std::snprintf(buffer, sizeof buffer, "%d\n%a\n%a\n%a\n%a\n%a\n%a\n", r.gpus, r.iteration_time_s, r.compute_time_s,
                r.comm_time_s, r.exposed_comm_s, r.bytes_sent_per_gpu, r.samples_per_s);
  return std::string(buffer) + r.collective_used + "\n" + r.simgrid_config + "\n";
}

IterationResult deserialize(const std::string& text)
{
  IterationResult r;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%d\n%la\n%la\n%la\n%la\n%la\n%la\n%n", &r.gpus, &r.iteration_time_s, &r.compute_time_s,
                  &r.comm_time_s, &r.exposed_comm_s, &r.bytes_sent_per_gpu, &r.samples_per_s, &consumed) != 7)
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
