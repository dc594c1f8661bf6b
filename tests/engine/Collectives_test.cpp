// Collectives against their alpha-beta closed forms (SimGrid CM02, factors 1, no cross-traffic).

#include "tests/engine/CollectiveTiming.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

// One NVSwitch node of p GPUs: the route GPU i -> GPU i+1 crosses two links (GPU->switch, switch->GPU),
// each with latency L and bandwidth B, so alpha = 2L and the bottleneck bandwidth is B.
constexpr double kLinkBps = 100e9;
constexpr double kHopLatency_s = 1e-6;

double ring_closed_form(int p, double bytes)
{
  const double alpha = 2 * kHopLatency_s;
  return 2.0 * (p - 1) * alpha + 2.0 * (p - 1) / p * bytes / kLinkBps;
}

} // namespace

TEST_CASE("engine::ring_all_reduce matches 2(p-1)a + 2(p-1)/p S/B for p = 2..64", "[engine][collectives]")
{
  const double bytes = 64e6;
  for (int p : {2, 3, 4, 5, 7, 8, 13, 16, 32, 64}) {
    const auto topology = engine::build_topology(testing::synthetic_platform(1, p, kLinkBps, kHopLatency_s), p);
    const double simulated = testing::time_collectives(topology, {{testing::first_ranks(p), bytes, false}});
    INFO("p = " << p);
    CHECK(simulated == Approx(ring_closed_form(p, bytes)).epsilon(1e-6));
  }
}

TEST_CASE("engine::flow_ring_all_reduce matches the same closed form on an uncontended ring", "[engine][collectives]")
{
  const double bytes = 100e6;
  for (int p : {2, 8, 64}) {
    const auto topology = engine::build_topology(testing::synthetic_platform(1, p, kLinkBps, kHopLatency_s), p);
    const double simulated = testing::time_collectives(topology, {{testing::first_ranks(p), bytes, true}});
    INFO("p = " << p);
    CHECK(simulated == Approx(ring_closed_form(p, bytes)).epsilon(1e-6));
  }
}

TEST_CASE("engine::flow_ring_all_reduce within 1% of the per-step ring across nodes", "[engine][collectives]")
{
  // 4 nodes x 8 GPUs: the ring crosses the network between nodes, where the NIC is the bottleneck.
  const auto topology = engine::build_topology(testing::synthetic_platform(4, 8, kLinkBps, kHopLatency_s), 32);
  const double per_step = testing::time_collectives(topology, {{testing::first_ranks(32), 256e6, false}});
  const double flow = testing::time_collectives(topology, {{testing::first_ranks(32), 256e6, true}});
  CHECK(flow == Approx(per_step).epsilon(0.01));
}

TEST_CASE("engine collectives that share a link slow each other down", "[engine][collectives]")
{
  // Two concurrent rings over the same two GPUs of different nodes share every link (NICs, switch
  // ports): with the bandwidth term dominating, together they take about twice as long.
  const auto topology = engine::build_topology(testing::synthetic_platform(2, 2, kLinkBps, kHopLatency_s), 4);
  const std::vector<int> ring{0, 2};
  for (bool flow : {false, true}) {
    const double alone = testing::time_collectives(topology, {{ring, 100e6, flow}});
    const double shared = testing::time_collectives(topology, {{ring, 100e6, flow}, {ring, 100e6, flow}});
    INFO("flow level: " << flow);
    CHECK(shared > 1.9 * alone);
  }
}

TEST_CASE("engine ring all-reduce time halves its bandwidth term when bandwidth doubles", "[engine][collectives]")
{
  const int p = 8;
  const double bytes = 1e9;
  const auto slow = engine::build_topology(testing::synthetic_platform(1, p, kLinkBps, 0.0), p);
  const auto fast = engine::build_topology(testing::synthetic_platform(1, p, 2 * kLinkBps, 0.0), p);
  const double t_slow = testing::time_collectives(slow, {{testing::first_ranks(p), bytes, false}});
  const double t_fast = testing::time_collectives(fast, {{testing::first_ranks(p), bytes, false}});
  CHECK(t_fast == Approx(t_slow / 2).epsilon(1e-6));
}
