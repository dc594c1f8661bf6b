#include "sim/engine/TopologyGraph.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

std::vector<std::string> route_names(const engine::TopologyGraph& t, int src, int dst)
{
  std::vector<std::string> names;
  for (const auto& hop : t.route(src, dst))
    names.push_back(t.graph[t.edges_by_id[hop.edge_id]].name + (hop.forward ? ">" : "<"));
  return names;
}

} // namespace

TEST_CASE("engine::TopologyGraph routes inside a node over NVSwitch and between nodes over the GPU's NIC", "[engine][topology]")
{
  const auto t = engine::build_topology(testing::synthetic_platform(2, 4, 100e9, 1e-6), 8);
  CHECK(route_names(t, 0, 1) == std::vector<std::string>{"n0-gpu0--n0-nvswitch>", "n0-gpu1--n0-nvswitch<"});
  CHECK(route_names(t, 1, 5) == std::vector<std::string>{"n0-gpu1--n0-nic1>", "n0-nic1--switch>", "n1-nic1--switch<",
                                                         "n1-gpu1--n1-nic1<"});
}

TEST_CASE("engine::TopologyGraph never forwards traffic through another GPU", "[engine][topology]")
{
  // Rail-optimised: GPU 1 of node 0 to GPU 0 of node 1 could tie with a path through a GPU
  // (gpu1 -> nvswitch -> gpu0 -> nic0 -> rail0 -> ...); it must cross the spine instead.
  auto platform = testing::synthetic_platform(2, 2, 100e9, 1e-6, 25e9, model::FabricTopology::RailOptimized);
  const auto t = engine::build_topology(platform, 4);
  for (int src = 0; src < 4; ++src)
    for (int dst = 0; dst < 4; ++dst) {
      if (src == dst)
        continue;
      const auto hops = t.route(src, dst);
      for (std::size_t i = 0; i + 1 < hops.size(); ++i) {
        const auto& edge = t.graph[t.edges_by_id[hops[i].edge_id]];
        const auto via = hops[i].forward ? edge.end_b : edge.end_a;
        CHECK(t.graph[via].kind != engine::VertexKind::Gpu);
      }
    }
  CHECK(route_names(t, 1, 2) == std::vector<std::string>{"n0-gpu1--n0-nic1>", "n0-nic1--rail1>", "rail1--spine>",
                                                         "rail0--spine<", "n1-nic0--rail0<", "n1-gpu0--n1-nic0<"});
}

TEST_CASE("engine::TopologyGraph sizes fat-tree uplinks as leaf capacity / oversubscription", "[engine][topology]")
{
  auto platform = testing::synthetic_platform(4, 2, 100e9, 1e-6, 25e9, model::FabricTopology::FatTree);
  platform.fabric.nodes_per_leaf = 2;
  platform.fabric.oversubscription = 2.0;
  const auto t = engine::build_topology(platform, 8);
  int uplinks = 0;
  for (const auto& e : t.edges_by_id)
    if (t.graph[e].name.find("core") != std::string::npos) {
      ++uplinks;
      CHECK(t.graph[e].bandwidth_Bps == Approx(2 /*nodes*/ * 2 /*nics*/ * 25e9 / 2.0));
    }
  CHECK(uplinks == 2);
}

TEST_CASE("engine::build_topology keeps only the nodes the GPU count needs", "[engine][topology]")
{
  const auto t = engine::build_topology(testing::synthetic_platform(100, 8, 100e9, 1e-6), 12);
  CHECK(t.gpu_vertices.size() == 12); // one whole node and half of the next
  CHECK(t.gpu_node.back() == 1);
}
