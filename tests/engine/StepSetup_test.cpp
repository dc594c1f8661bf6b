// What the step's setup hands the platform: the routes its collectives send on, and no more.

#include "sim/engine/StepSetup.hpp"
#include "sim/engine/collectives/CollectiveDispatch.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace gpuscale;

TEST_CASE("engine::StepSetup gives the platform halving-doubling routes only where a plan of the step runs it",
          "[engine][setup]")
{
  // 32 GPUs (a power of two) on 4 nodes, DDP under auto with NCCL-like fixed costs: 2.4 KB of
  // gradients all-reduce by halving-doubling (its log2 p latencies win over the pipelined
  // hierarchy's per-step costs), 120 MB by pipelined rings.
  int planned_both_ways = 0;
  for (double params_per_layer : {1e2, 5e6}) {
    INFO("parameters per layer: " << params_per_layer);
    auto s = testing::synthetic_scenario(testing::synthetic_platform(4, 8, 200e9, 1e-6),
                                         testing::synthetic_workload(std::vector<double>(12, params_per_layer), 2e9),
                                         32, 4);
    s.scenario.collective = model::CollectiveAlgorithm::Auto;
    s.scenario.links.collective_fixed_s = 5e-6;
    s.scenario.links.simple_step_s = 2e-6;
    const engine::StepSetup setup(s);
    const engine::CommunicatorLayout& layout = setup.dp_layouts.front();

    bool planned = false;
    for (const engine::Instruction& in : setup.programs.front().instructions)
      if (in.kind == engine::Instruction::Kind::Submit)
        planned = planned || engine::plan_collective(in.op, model::CollectiveAlgorithm::Auto, layout.shape(), in.amount)
                                 .halving_doubling;
    planned_both_ways += planned ? 1 : 2;

    const std::set<std::pair<int, int>> routes(setup.routes.begin(), setup.routes.end());
    const auto rings = layout.route_pairs(false);
    for (const auto& pair : rings) // every ring route, always
      CHECK(routes.count(pair) == 1);
    std::size_t partners_present = 0;
    std::size_t partners = 0;
    for (const auto& pair : layout.route_pairs(true))
      if (std::find(rings.begin(), rings.end(), pair) == rings.end()) {
        ++partners;
        partners_present += routes.count(pair);
      }
    REQUIRE(partners > 0);
    CHECK(partners_present == (planned ? partners : 0));
  }
  CHECK(planned_both_ways == 3); // one case planned halving-doubling, the other did not
}
