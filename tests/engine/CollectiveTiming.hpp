#pragma once
// Times collectives on a topology, in their own process (SimGrid allows one engine per process).

#include "sim/engine/IsolatedRun.hpp"
#include "sim/engine/RouteCosts.hpp"
#include "sim/engine/SimgridConfig.hpp"
#include "sim/engine/SimgridPlatform.hpp"
#include "sim/engine/TopologyGraph.hpp"
#include "sim/engine/collectives/AnalyticalCollective.hpp"
#include "sim/engine/collectives/CollectiveDispatch.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace gpuscale::testing {

struct CollectiveJob {
  std::vector<int> ranks; ///< GPU ranks of the communicator, in communicator order
  double bytes = 0;
  model::CollectiveAlgorithm algorithm = model::CollectiveAlgorithm::Ring;
  engine::CollectiveOp op = engine::CollectiveOp::AllReduce;
};

struct CollectiveTiming {
  double end_s = 0;            ///< when the last job ended
  double bytes_sent_rank0 = 0; ///< what rank 0 of the first job sent
};

/// Runs `jobs` concurrently (each its own communicator) and returns when the last one ends.
/// Links at line rate (fractions 1: the topology's own) and no fixed costs unless `links` says otherwise.
inline model::LinkFractions line_rate_links()
{
  model::LinkFractions links;
  links.every_link = 1.0;
  return links;
}

inline CollectiveTiming time_collectives_detailed(const engine::TopologyGraph& topology,
                                                  const std::vector<CollectiveJob>& jobs,
                                                  const model::LinkFractions& links = line_rate_links())
{
  const std::string text = engine::run_isolated([&] {
    int argc = 2;
    char arg0[] = "test";
    char arg1[] = "--log=root.thres:critical";
    char* argv[] = {arg0, arg1, nullptr};
    simgrid::s4u::Engine engine(&argc, argv);
    for (const auto& item : engine::simgrid_config_items(model::SimgridNetworkConfig{}))
      simgrid::s4u::Engine::set_config(item);
    engine::SimgridPlatformSpec spec;
    spec.gpu_speed_flop_per_s.assign(topology.gpu_vertices.size(), 1e12);
    std::vector<engine::CommunicatorLayout> layouts;
    for (const auto& job : jobs) {
      layouts.push_back(engine::make_communicator_layout(job.ranks, topology, links));
      for (const auto& pair : layouts.back().route_pairs(true))
        spec.routes.push_back(pair);
    }
    const auto platform = engine::build_simgrid_platform(topology, spec);
    std::vector<engine::Communicator> comms;
    for (std::size_t j = 0; j < jobs.size(); ++j)
      comms.push_back(engine::make_communicator("job" + std::to_string(j), layouts[j], platform.gpu_hosts));
    double end_s = 0;
    std::vector<std::vector<engine::CollectiveCounters>> counters(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      counters[j].resize(jobs[j].ranks.size());
      for (int r = 0; r < comms[j].size(); ++r)
        simgrid::s4u::Actor::create("a" + std::to_string(j) + "-" + std::to_string(r),
                                    comms[j].hosts[static_cast<std::size_t>(r)], [&, j, r] {
                                      engine::run_collective(jobs[j].op, jobs[j].algorithm, comms[j], r, jobs[j].bytes,
                                                             counters[j][static_cast<std::size_t>(r)]);
                                      end_s = std::max(end_s, simgrid::s4u::Engine::get_clock());
                                    });
    }
    engine.run();
    char buffer[128];
    std::snprintf(buffer, sizeof buffer, "%a %a", end_s, counters[0][0].bytes_sent);
    return std::string(buffer);
  });
  CollectiveTiming timing;
  std::sscanf(text.c_str(), "%la %la", &timing.end_s, &timing.bytes_sent_rank0);
  return timing;
}

inline double time_collectives(const engine::TopologyGraph& topology, const std::vector<CollectiveJob>& jobs,
                               const model::LinkFractions& links = line_rate_links())
{
  return time_collectives_detailed(topology, jobs, links).end_s;
}

/// The same jobs on the analytical executor: each alone on the links (no contention), from time 0.
inline double time_collectives_analytically(const engine::TopologyGraph& topology,
                                            const std::vector<CollectiveJob>& jobs,
                                            const model::LinkFractions& links = line_rate_links())
{
  double end_s = 0;
  for (const auto& job : jobs) {
    const auto layout = engine::make_communicator_layout(job.ranks, topology, links);
    const engine::RouteCosts routes(topology, layout.route_pairs(true), model::SimgridNetworkConfig{});
    std::vector<double> clock_s(job.ranks.size(), 0.0);
    std::vector<engine::CollectiveCounters> counters(job.ranks.size());
    engine::time_collective(job.op, job.algorithm, layout, routes, std::vector<double>(job.ranks.size(), job.bytes),
                            clock_s, counters);
    end_s = std::max(end_s, *std::max_element(clock_s.begin(), clock_s.end()));
  }
  return end_s;
}

/// Both executors on jobs that share no link: checks that they agree to 1e-6 and returns SimGrid's time.
inline double time_uncontended(const engine::TopologyGraph& topology, const std::vector<CollectiveJob>& jobs,
                               const model::LinkFractions& links = line_rate_links())
{
  const double simulated = time_collectives(topology, jobs, links);
  CHECK(time_collectives_analytically(topology, jobs, links) == Approx(simulated).epsilon(1e-6));
  return simulated;
}

inline std::vector<int> first_ranks(int p)
{
  std::vector<int> ranks;
  for (int i = 0; i < p; ++i)
    ranks.push_back(i);
  return ranks;
}

} // namespace gpuscale::testing
