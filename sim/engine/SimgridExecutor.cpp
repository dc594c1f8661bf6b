#include "sim/engine/SimgridExecutor.hpp"

#include "sim/engine/CommStream.hpp"
#include "sim/engine/GpuActor.hpp"
#include "sim/engine/SimgridConfig.hpp"
#include "sim/engine/SimgridPlatform.hpp"
#include "sim/engine/SymmetryFold.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <memory>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {
namespace {

std::vector<Communicator> communicators_of(const std::string& prefix, const std::vector<CommunicatorLayout>& layouts,
                                           const SimgridPlatform& platform, const SymmetryFold& fold)
{
  std::vector<Communicator> comms;
  comms.reserve(layouts.size());
  if (!fold.folded()) {
    for (std::size_t g = 0; g < layouts.size(); ++g)
      comms.push_back(make_communicator(prefix + std::to_string(g), layouts[g], platform.gpu_hosts));
    return comms;
  }
  FoldedMailboxes mailboxes{prefix, {}};
  for (int rank = 0; rank < static_cast<int>(platform.gpu_hosts.size()); ++rank)
    mailboxes.representative.push_back(fold.representative(rank));
  for (std::size_t g = 0; g < layouts.size(); ++g) {
    const auto& members = layouts[g].gpu_ranks;
    // A group with no simulated GPU runs no actor: nothing to build.
    const bool simulated =
        std::any_of(members.begin(), members.end(), [&](int gpu) { return gpu < fold.block_ranks; });
    comms.push_back(simulated ? make_communicator(prefix + std::to_string(g), layouts[g], platform.gpu_hosts, mailboxes)
                              : Communicator{});
  }
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

void configure_engine(const model::SimgridNetworkConfig& network)
{
  for (const auto& item : simgrid_config_items(network))
    sg4::Engine::set_config(item);
}

} // namespace

StepTrace execute_on_simgrid(const StepSetup& setup)
{
  return execute_on_simgrid(setup, nullptr);
}

StepTrace execute_on_simgrid(const StepSetup& setup, std::vector<RankEvents>* events)
{
  const model::Scenario& scenario = *setup.scenario;
  const int p = setup.gpus();
  // The engine parses --log from argv; the network model is set explicitly below.
  int argc = 2;
  char arg0[] = "gpuscale";
  char arg1[] = "--log=root.thres:critical";
  char* argv[] = {arg0, arg1, nullptr};
  sg4::Engine engine(&argc, argv);
  configure_engine(scenario.simgrid);

  SymmetryFold own_fold;
  const SymmetryFold* fold = setup.fold;
  if (fold == nullptr) {
    own_fold = find_symmetry_fold(setup);
    fold = &own_fold;
  }
  // Folded: only the first block's GPUs run; every other takes its representative's trace.
  const int simulated = fold->folded() ? fold->block_ranks : p;

  SimgridPlatformSpec spec;
  spec.gpu_speed_flop_per_s = setup.gpu_speed_flop_per_s;
  spec.routes = setup.routes;
  spec.fold = fold;
  const SimgridPlatform platform = build_simgrid_platform(setup.topology, spec);

  // Gradient and parameter streams run concurrently over the same ranks (ZeRO-3 prefetch next to
  // gradient reduce-scatter): separate communicators, so their messages never mix.
  // Only for the streams some program uses (DDP never gathers parameters): each communicator
  // names a mailbox and looks up a route per channel and member, thousands at thousands of GPUs.
  std::array<std::vector<Communicator>, kStreamCount> comms;
  auto build = [&](Stream which, const char* prefix, const std::vector<CommunicatorLayout>& layouts) {
    const auto s = static_cast<std::size_t>(which);
    for (const StepProgram& program : setup.programs)
      if (program.submitted[s] > 0) {
        comms[s] = communicators_of(prefix, layouts, platform, *fold);
        return;
      }
  };
  build(Stream::Gradients, "dp-grad", setup.dp_layouts);
  build(Stream::Parameters, "dp-param", setup.dp_layouts);
  build(Stream::TensorParallel, "tp", setup.tp_layouts);
  build(Stream::ContextParallel, "cp", setup.cp_layouts);

  std::vector<std::unique_ptr<CommStream>> streams;
  std::vector<std::array<CommStream*, kStreamCount>> streams_of_rank(static_cast<std::size_t>(p));
  StepTrace trace(static_cast<std::size_t>(p));
  if (events != nullptr)
    events->assign(static_cast<std::size_t>(p), RankEvents{});
  for (int rank = 0; rank < simulated; ++rank) {
    sg4::Host* host = platform.gpu_hosts[static_cast<std::size_t>(rank)];
    const std::string suffix = std::to_string(rank);
    const StepProgram& program = setup.program_of(rank);
    for (Stream which : {Stream::Gradients, Stream::Parameters, Stream::TensorParallel, Stream::ContextParallel}) {
      const auto s = static_cast<std::size_t>(which);
      if (program.submitted[s] == 0)
        continue;
      const StreamGroups groups = setup.groups_of(which);
      const auto g = static_cast<std::size_t>(setup.group_of(which, rank));
      streams.push_back(std::make_unique<CommStream>(comms[s][g], position_in((*groups.groups)[g], rank), groups.algorithm));
      if (events != nullptr)
        streams.back()->record_events(&(*events)[static_cast<std::size_t>(rank)].collectives[s]);
      streams_of_rank[static_cast<std::size_t>(rank)][s] = streams.back().get();
      sg4::Actor::create("stream" + std::to_string(static_cast<int>(which)) + "-" + suffix, host,
                         [stream = streams.back().get()] { (*stream)(); });
    }
    GpuActor gpu(program, streams_of_rank[static_cast<std::size_t>(rank)], trace[static_cast<std::size_t>(rank)].timeline,
                 events != nullptr ? &(*events)[static_cast<std::size_t>(rank)].instruction_start_s : nullptr);
    if (program.transfers > 0) // a fold keeps whole replicas, so both neighbours are simulated
      gpu.set_pipeline(rank, setup.parallel.previous_stage_rank(rank), setup.parallel.next_stage_rank(rank),
                       &trace[static_cast<std::size_t>(rank)].pipeline);
    sg4::Actor::create("gpu" + suffix, host, std::move(gpu));
  }
  engine.run();

  for (int rank = 0; rank < simulated; ++rank)
    for (std::size_t s = 0; s < kStreamCount; ++s)
      if (const CommStream* stream = streams_of_rank[static_cast<std::size_t>(rank)][s])
        trace[static_cast<std::size_t>(rank)].streams[s] = {true, stream->busy_s(), stream->counters().bytes_sent};
  for (int rank = simulated; rank < p; ++rank) {
    const auto representative = static_cast<std::size_t>(fold->representative(rank));
    trace[static_cast<std::size_t>(rank)] = trace[representative];
    if (events != nullptr)
      (*events)[static_cast<std::size_t>(rank)] = (*events)[representative];
  }
  return trace;
}

} // namespace gpuscale::engine
