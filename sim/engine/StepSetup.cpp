#include "sim/engine/StepSetup.hpp"

#include "sim/engine/ScheduleBuilder.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>

namespace gpuscale::engine {
namespace {

std::vector<CommunicatorLayout> layouts_of(const std::vector<std::vector<int>>& groups, const TopologyGraph& topology,
                                           const model::LinkFractions& links)
{
  std::vector<CommunicatorLayout> layouts;
  for (const auto& group : groups)
    layouts.push_back(make_communicator_layout(group, topology, links));
  return layouts;
}

/// The collectives the programs submit on `streams`, once each: (operation, bytes).
std::set<std::pair<CollectiveOp, double>> collectives_on(const std::vector<StepProgram>& programs,
                                                         std::initializer_list<Stream> streams)
{
  std::set<std::pair<CollectiveOp, double>> out;
  for (const StepProgram& program : programs)
    for (const Instruction& in : program.instructions)
      if (in.kind == Instruction::Kind::Submit && std::find(streams.begin(), streams.end(), in.stream) != streams.end())
        out.emplace(in.op, in.amount);
  return out;
}

/// Whether any of `collectives` runs halving-doubling on `layout` with `requested` (the plan
/// run_collective makes): only then does the platform need its partners' routes, most of which
/// cross the fabric's top (the cost of building a 4096-GPU platform: docs/BENCHMARKS.md, "Steady state,
/// and the platform at thousands of GPUs").
bool runs_halving_doubling(const std::set<std::pair<CollectiveOp, double>>& collectives,
                           model::CollectiveAlgorithm requested, const CommunicatorLayout& layout)
{
  if (requested != model::CollectiveAlgorithm::HalvingDoubling && requested != model::CollectiveAlgorithm::Auto)
    return false;
  const CommunicatorShape shape = layout.shape();
  for (const auto& [op, bytes] : collectives)
    if (plan_collective(op, requested, shape, bytes).halving_doubling)
      return true;
  return false;
}

/// The ordered pairs every collective of the step sends on, so the platform has their routes;
/// `halving_doubling_across_nodes` set when some of them are butterfly partners on different nodes.
std::vector<std::pair<int, int>> routes_of(const StepSetup& setup, bool& halving_doubling_across_nodes)
{
  const auto dp = collectives_on(setup.programs, {Stream::Gradients, Stream::Parameters});
  const auto tp = collectives_on(setup.programs, {Stream::TensorParallel});
  const auto cp = collectives_on(setup.programs, {Stream::ContextParallel});
  std::vector<std::pair<int, int>> routes;
  auto add = [&](const std::vector<CommunicatorLayout>& layouts, const std::set<std::pair<CollectiveOp, double>>& used,
                 model::CollectiveAlgorithm requested) {
    for (const auto& layout : layouts) {
      const bool butterfly = runs_halving_doubling(used, requested, layout);
      halving_doubling_across_nodes = halving_doubling_across_nodes || (butterfly && layout.locals.size() > 1);
      for (const auto& pair : layout.route_pairs(butterfly))
        routes.push_back(pair);
    }
  };
  add(setup.dp_layouts, dp, setup.scenario->collective);
  add(setup.tp_layouts, tp, model::CollectiveAlgorithm::Auto);
  add(setup.cp_layouts, cp, model::CollectiveAlgorithm::Auto);
  // Pipeline sends: both ways between neighbouring stages (the ring's wrap only where the interleaved
  // schedule uses it).
  const ParallelLayout& layout = setup.parallel;
  if (layout.pp > 1)
    for (int rank = 0; rank < setup.gpus(); ++rank) {
      const bool last = layout.pipeline_index(rank) == layout.pp - 1;
      if (last && setup.scenario->virtual_pipeline == 1)
        continue;
      const int next = layout.next_stage_rank(rank);
      routes.emplace_back(rank, next);
      routes.emplace_back(next, rank);
    }
  return routes;
}

} // namespace

int StepSetup::group_of(Stream stream, int rank) const
{
  switch (stream) {
    case Stream::Gradients:
    case Stream::Parameters: return parallel.data_parallel_group_of(rank);
    case Stream::TensorParallel: return parallel.tensor_parallel_group_of(rank);
    case Stream::ContextParallel: return parallel.context_parallel_group_of(rank);
  }
  return -1;
}

StreamGroups StepSetup::groups_of(Stream stream) const
{
  switch (stream) {
    case Stream::Gradients:
    case Stream::Parameters:
      return {&parallel.data_parallel_groups, &dp_layouts, scenario->collective};
    case Stream::TensorParallel:
      return {&parallel.tensor_parallel_groups, &tp_layouts, model::CollectiveAlgorithm::Auto};
    case Stream::ContextParallel:
      return {&parallel.context_parallel_groups, &cp_layouts, model::CollectiveAlgorithm::Auto};
  }
  return {};
}

StepSetup::StepSetup(const model::ResolvedScenario& resolved)
    : scenario(&resolved.scenario), topology(build_topology(resolved.platform, resolved.scenario.gpus)),
      parallel(make_parallel_layout(resolved.scenario))
{
  const auto& scenario = resolved.scenario;
  const int p = scenario.gpus;
  const model::Precision precision = resolved.precision();
  apply_link_fractions(topology, scenario.links);
  dp_layouts = layouts_of(parallel.data_parallel_groups, topology, scenario.links);
  tp_layouts = layouts_of(parallel.tensor_parallel_groups, topology, scenario.links);
  cp_layouts = layouts_of(parallel.context_parallel_groups, topology, scenario.links);

  std::map<std::string, std::size_t> program_of_type;
  for (int rank = 0; rank < p; ++rank) {
    const std::string& type_name = topology.gpu_type[static_cast<std::size_t>(rank)];
    const model::GpuType& gpu = resolved.platform.gpu_types.at(type_name);
    gpu_speed_flop_per_s.push_back(gpu.peak_for(precision).value() * scenario.efficiency_for(gpu).compute);
    // One program per distinct (GPU type, batch share, pipeline stage): uneven allocations give GPUs
    // their own, and each stage runs its own chunks and schedule.
    const model::BatchShare share = scenario.batch_of_rank(rank);
    const int stage = parallel.pipeline_index(rank);
    const std::string key = type_name + "/" + std::to_string(share.micro_batch) + "x" +
                            std::to_string(share.accumulation) + "/" + std::to_string(stage);
    auto [it, inserted] = program_of_type.try_emplace(key, programs.size());
    if (inserted)
      programs.push_back(build_step_program(resolved.workload, scenario, gpu, precision, share, stage));
    program_of_rank.push_back(it->second);
  }
  routes = routes_of(*this, halving_doubling_across_nodes);
}

} // namespace gpuscale::engine
