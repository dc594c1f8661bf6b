#pragma once
// Times one all-reduce on a topology, in its own process (SimGrid allows one engine per process).

#include "sim/engine/IsolatedRun.hpp"
#include "sim/engine/SimgridConfig.hpp"
#include "sim/engine/SimgridPlatform.hpp"
#include "sim/engine/TopologyGraph.hpp"
#include "sim/engine/collectives/FlowRingAllReduce.hpp"
#include "sim/engine/collectives/RingAllReduce.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace gpuscale::testing {

struct CollectiveJob {
  std::vector<int> ranks; ///< GPU ranks of the ring, in ring order
  double bytes = 0;
  bool flow_level = false;
};

/// Runs `jobs` concurrently (each its own communicator) and returns the time the last one ends.
inline double time_collectives(const engine::TopologyGraph& topology, const std::vector<CollectiveJob>& jobs)
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
    for (const auto& job : jobs)
      for (std::size_t i = 0; i < job.ranks.size(); ++i)
        spec.routes.emplace_back(job.ranks[i], job.ranks[(i + 1) % job.ranks.size()]);
    const auto platform = engine::build_simgrid_platform(topology, spec);
    std::vector<engine::Communicator> comms;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      std::vector<simgrid::s4u::Host*> hosts;
      for (int rank : jobs[j].ranks)
        hosts.push_back(platform.gpu_hosts[static_cast<std::size_t>(rank)]);
      comms.push_back(engine::make_ring_communicator("job" + std::to_string(j), hosts));
    }
    double end_s = 0;
    std::vector<engine::CollectiveCounters> counters(1024);
    for (std::size_t j = 0; j < jobs.size(); ++j)
      for (int r = 0; r < comms[j].size(); ++r)
        simgrid::s4u::Actor::create("a" + std::to_string(j) + "-" + std::to_string(r), comms[j].hosts[static_cast<std::size_t>(r)],
                                    [&, j, r] {
                                      auto& c = counters[static_cast<std::size_t>(r) % counters.size()];
                                      if (jobs[j].flow_level)
                                        engine::flow_ring_all_reduce(comms[j], r, jobs[j].bytes, c);
                                      else
                                        engine::ring_all_reduce(comms[j], r, jobs[j].bytes, c);
                                      end_s = std::max(end_s, simgrid::s4u::Engine::get_clock());
                                    });
    engine.run();
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%a", end_s);
    return std::string(buffer);
  });
  return std::strtod(text.c_str(), nullptr);
}

inline std::vector<int> first_ranks(int p)
{
  std::vector<int> ranks;
  for (int i = 0; i < p; ++i)
    ranks.push_back(i);
  return ranks;
}

} // namespace gpuscale::testing
