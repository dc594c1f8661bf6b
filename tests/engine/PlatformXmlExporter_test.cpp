// The exported XML is the same platform: SimGrid loads it and a ring all-reduce takes the same time
// as on the platform built in code.

#include "sim/engine/PlatformXmlExporter.hpp"
#include "tests/engine/CollectiveTiming.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace gpuscale;

TEST_CASE("engine::write_simgrid_xml exports a platform SimGrid loads with identical timings", "[engine][export]")
{
  const auto platform = testing::synthetic_platform(2, 4, 100e9, 1e-6, 25e9, model::FabricTopology::RailOptimized);
  const auto topology = engine::build_topology(platform, 8);
  const auto xml = std::filesystem::temp_directory_path() / ("gpuscale-export-" + std::to_string(::getpid()) + ".xml");
  {
    std::ofstream out(xml);
    engine::write_simgrid_xml(topology, std::vector<double>(8, 1e12), out);
  }
  const double programmatic = testing::time_collectives(topology, {{testing::first_ranks(8), 64e6, model::CollectiveAlgorithm::Ring}});
  const std::string loaded = engine::run_isolated([&] {
    int argc = 2;
    char arg0[] = "test";
    char arg1[] = "--log=root.thres:critical";
    char* argv[] = {arg0, arg1, nullptr};
    simgrid::s4u::Engine engine(&argc, argv);
    for (const auto& item : engine::simgrid_config_items(model::SimgridNetworkConfig{}))
      simgrid::s4u::Engine::set_config(item);
    engine.load_platform(xml.string());
    std::vector<simgrid::s4u::Host*> hosts;
    for (int rank = 0; rank < 8; ++rank)
      hosts.push_back(simgrid::s4u::Host::by_name(topology.graph[topology.gpu_vertices[static_cast<std::size_t>(rank)]].name));
    const auto layout = engine::make_communicator_layout(testing::first_ranks(8), topology, testing::line_rate_links());
    std::vector<simgrid::s4u::Host*> by_rank = hosts;
    const auto comm = engine::make_communicator("xml", layout, by_rank);
    double end_s = 0;
    std::vector<engine::CollectiveCounters> counters(8);
    for (int r = 0; r < 8; ++r)
      simgrid::s4u::Actor::create("a" + std::to_string(r), hosts[static_cast<std::size_t>(r)], [&, r] {
        engine::run_collective(engine::CollectiveOp::AllReduce, model::CollectiveAlgorithm::Ring, comm, r, 64e6,
                               counters[static_cast<std::size_t>(r)]);
        end_s = std::max(end_s, simgrid::s4u::Engine::get_clock());
      });
    engine.run();
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%a", end_s);
    return std::string(buffer);
  });
  std::filesystem::remove(xml);
  CHECK(std::strtod(loaded.c_str(), nullptr) == Approx(programmatic).epsilon(1e-12));
  CHECK(programmatic > 0);
}
