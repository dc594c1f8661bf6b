#include "sim/engine/CollectiveBenchmark.hpp"

#include "sim/engine/IsolatedRun.hpp"
#include "sim/engine/SimgridConfig.hpp"
#include "sim/engine/SimgridPlatform.hpp"
#include "sim/engine/TopologyGraph.hpp"
#include "sim/engine/collectives/AllToAll.hpp"
#include "sim/engine/collectives/CollectiveDispatch.hpp"
#include "sim/engine/collectives/RingBroadcast.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Barrier.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace sg4 = simgrid::s4u;

namespace gpuscale::engine {
namespace {

using model::CollectiveAlgorithm;

/// The engine's collective for the three that training schedules also run.
std::optional<CollectiveOp> engine_op(NcclTestsCollective op)
{
  switch (op) {
    case NcclTestsCollective::AllReduce: return CollectiveOp::AllReduce;
    case NcclTestsCollective::ReduceScatter: return CollectiveOp::ReduceScatter;
    case NcclTestsCollective::AllGather: return CollectiveOp::AllGather;
    case NcclTestsCollective::Broadcast:
    case NcclTestsCollective::AllToAll: break;
  }
  return std::nullopt;
}

/// What plan_collective runs for `op` of `bytes`, named as results name it.
std::string algorithm_run(const CollectiveBenchmarkSpec& spec, const CommunicatorShape& shape, double bytes)
{
  if (shape.size < 2 || bytes <= 0)
    return "none";
  if (spec.op == NcclTestsCollective::Broadcast)
    return "ring";
  if (spec.op == NcclTestsCollective::AllToAll)
    return "p2p";
  return plan_collective(*engine_op(spec.op), spec.algorithm, shape, bytes).algorithm;
}

void run_one(const CollectiveBenchmarkSpec& spec, const Communicator& comm, int rank, double bytes,
             CollectiveCounters& counters)
{
  switch (spec.op) {
    case NcclTestsCollective::Broadcast:
      ring_broadcast(comm, rank, spec.root, bytes, counters);
      return;
    case NcclTestsCollective::AllToAll:
      all_to_all(comm, rank, bytes, counters);
      return;
    case NcclTestsCollective::AllReduce:
    case NcclTestsCollective::ReduceScatter:
    case NcclTestsCollective::AllGather:
      run_collective(*engine_op(spec.op), spec.algorithm, comm, rank, bytes, counters);
      return;
  }
}

std::vector<double> parse_times(const std::string& text, std::size_t count)
{
  std::vector<double> times;
  std::istringstream in(text);
  std::string word;
  while (in >> word)
    times.push_back(std::strtod(word.c_str(), nullptr));
  if (times.size() != count)
    throw std::runtime_error("collective benchmark: the simulation returned " + std::to_string(times.size()) +
                             " times for " + std::to_string(count) + " sizes");
  return times;
}

} // namespace

std::optional<std::string> benchmark_algorithm_problem(NcclTestsCollective op, CollectiveAlgorithm algorithm)
{
  if (op == NcclTestsCollective::Broadcast && algorithm != CollectiveAlgorithm::Auto &&
      algorithm != CollectiveAlgorithm::Ring && algorithm != CollectiveAlgorithm::RingFlow)
    return "broadcast runs a pipelined ring (auto, ring or ring_flow: the same model), not " + model::to_string(algorithm);
  if (op == NcclTestsCollective::AllToAll && algorithm != CollectiveAlgorithm::Auto)
    return "alltoall runs point-to-point exchanges with every peer at once: auto, not " + model::to_string(algorithm);
  return std::nullopt;
}

std::optional<std::string> benchmark_size_problem(NcclTestsCollective op, int gpus)
{
  if (op == NcclTestsCollective::AllToAll && gpus > kMaxAllToAllGpus)
    return "alltoall simulates every GPU pair's flow at once (p(p-1) flows and routes): at most " +
           std::to_string(kMaxAllToAllGpus) + " GPUs, got " + std::to_string(gpus);
  return std::nullopt;
}

std::vector<CollectiveBenchmarkRow> benchmark_collective(const model::Platform& platform,
                                                         const CollectiveBenchmarkSpec& spec,
                                                         const BenchmarkNetwork& network)
{
  if (spec.gpus < 1 || spec.gpus > platform.gpu_count())
    throw std::invalid_argument("collective benchmark: " + std::to_string(spec.gpus) + " GPUs asked, the platform has " +
                                std::to_string(platform.gpu_count()));
  if (const auto problem = benchmark_size_problem(spec.op, spec.gpus))
    throw std::invalid_argument(*problem);
  if (const auto problem = benchmark_algorithm_problem(spec.op, spec.algorithm))
    throw std::invalid_argument(*problem);
  TopologyGraph topology = build_topology(platform, spec.gpus);
  apply_link_fractions(topology, network.links);
  std::vector<int> ranks(static_cast<std::size_t>(spec.gpus));
  for (int r = 0; r < spec.gpus; ++r)
    ranks[static_cast<std::size_t>(r)] = r;
  CommunicatorLayout layout = make_communicator_layout(ranks, topology, network.links);
  std::vector<std::pair<int, int>> routes =
      spec.op == NcclTestsCollective::AllToAll ? all_to_all_route_pairs(layout) : std::vector<std::pair<int, int>>{};
  for (const auto& pair : layout.route_pairs(true))
    routes.push_back(pair);

  const std::string text = run_isolated([&] {
    // The engine parses --log from argv; the network model is set explicitly below, as a run sets it.
    int argc = 2;
    char arg0[] = "gpuscale";
    char arg1[] = "--log=root.thres:critical";
    char* argv[] = {arg0, arg1, nullptr};
    sg4::Engine engine(&argc, argv);
    for (const auto& item : simgrid_config_items(network.simgrid))
      sg4::Engine::set_config(item);
    SimgridPlatformSpec platform_spec;
    platform_spec.gpu_speed_flop_per_s.assign(static_cast<std::size_t>(spec.gpus), 1e12); // nothing computes
    platform_spec.routes = routes;
    const SimgridPlatform simgrid_platform = build_simgrid_platform(topology, platform_spec);
    const Communicator comm = make_communicator("nccl-tests", layout, simgrid_platform.gpu_hosts);

    const std::size_t sizes = spec.sizes_bytes.size();
    std::vector<double> start_s(sizes, 0.0);
    std::vector<double> end_s(sizes, 0.0);
    std::vector<double> sent_bytes(sizes, 0.0);
    sg4::BarrierPtr barrier = sg4::Barrier::create(static_cast<unsigned>(spec.gpus));
    for (int rank = 0; rank < spec.gpus; ++rank)
      sg4::Actor::create("rank" + std::to_string(rank), comm.hosts[static_cast<std::size_t>(rank)], [&, rank] {
        CollectiveCounters counters;
        for (std::size_t i = 0; i < sizes; ++i) {
          barrier->wait(); // every rank leaves at the same instant: the common start
          if (rank == 0)
            start_s[i] = sg4::Engine::get_clock();
          const double sent_before = counters.bytes_sent;
          run_one(spec, comm, rank, spec.sizes_bytes[i], counters);
          end_s[i] = std::max(end_s[i], sg4::Engine::get_clock());
          sent_bytes[i] = std::max(sent_bytes[i], counters.bytes_sent - sent_before);
        }
      });
    engine.run();
    std::string times;
    char buffer[64];
    for (std::size_t i = 0; i < sizes; ++i) {
      std::snprintf(buffer, sizeof buffer, "%a %a ", end_s[i] - start_s[i], sent_bytes[i]);
      times += buffer;
    }
    return times;
  });

  const std::vector<double> figures = parse_times(text, 2 * spec.sizes_bytes.size()); // time, bytes per size
  const CommunicatorShape shape = layout.shape();
  std::vector<CollectiveBenchmarkRow> rows;
  for (std::size_t i = 0; i < spec.sizes_bytes.size(); ++i)
    rows.push_back({spec.sizes_bytes[i], figures[2 * i], figures[2 * i + 1], algorithm_run(spec, shape, spec.sizes_bytes[i])});
  return rows;
}

} // namespace gpuscale::engine
