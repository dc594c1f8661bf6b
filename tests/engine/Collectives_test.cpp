// Collectives against their alpha-beta closed forms (SimGrid CM02, factors 1, no cross-traffic), each
// timed by both executors (time_uncontended checks the analytical one equals SimGrid to 1e-6).

#include "tests/engine/CollectiveTiming.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

#include <cmath>

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
    const double simulated = testing::time_uncontended(topology, {{testing::first_ranks(p), bytes, model::CollectiveAlgorithm::Ring}});
    INFO("p = " << p);
    CHECK(simulated == Approx(ring_closed_form(p, bytes)).epsilon(1e-6));
  }
}

TEST_CASE("engine ring_flow all-reduce matches the same closed form on an uncontended ring", "[engine][collectives]")
{
  const double bytes = 100e6;
  for (int p : {2, 8, 64}) {
    const auto topology = engine::build_topology(testing::synthetic_platform(1, p, kLinkBps, kHopLatency_s), p);
    const double simulated = testing::time_uncontended(topology, {{testing::first_ranks(p), bytes, model::CollectiveAlgorithm::RingFlow}});
    INFO("p = " << p);
    CHECK(simulated == Approx(ring_closed_form(p, bytes)).epsilon(1e-6));
  }
}

TEST_CASE("engine ring_flow all-reduce within 1% of the per-step ring across nodes", "[engine][collectives]")
{
  // 4 nodes x 8 GPUs: the ring crosses the network between nodes, where the NIC is the bottleneck.
  const auto topology = engine::build_topology(testing::synthetic_platform(4, 8, kLinkBps, kHopLatency_s), 32);
  const double per_step = testing::time_uncontended(topology, {{testing::first_ranks(32), 256e6, model::CollectiveAlgorithm::Ring}});
  const double flow = testing::time_uncontended(topology, {{testing::first_ranks(32), 256e6, model::CollectiveAlgorithm::RingFlow}});
  // Per step, every step waits for its slowest channel hop; at flow level the channels' flows share
  // the GPU ports for the whole collective: a few per cent apart.
  CHECK(flow == Approx(per_step).epsilon(0.05));
}

TEST_CASE("engine collectives that share a link slow each other down", "[engine][collectives]")
{
  // Two concurrent rings over the same two GPUs of different nodes share every link (NICs, switch
  // ports): with the bandwidth term dominating, together they take about twice as long.
  const auto topology = engine::build_topology(testing::synthetic_platform(2, 2, kLinkBps, kHopLatency_s), 4);
  const std::vector<int> ring{0, 2};
  for (auto algorithm : {model::CollectiveAlgorithm::Ring, model::CollectiveAlgorithm::RingFlow}) {
    const double alone = testing::time_collectives(topology, {{ring, 100e6, algorithm}});
    const double shared = testing::time_collectives(topology, {{ring, 100e6, algorithm}, {ring, 100e6, algorithm}});
    INFO("algorithm: " << model::to_string(algorithm));
    CHECK(shared > 1.9 * alone);
    // The analytical executor gives each ring the links alone: the contention is what it leaves out.
    CHECK(testing::time_collectives_analytically(topology, {{ring, 100e6, algorithm}, {ring, 100e6, algorithm}}) ==
          Approx(alone).epsilon(1e-6));
  }
}

TEST_CASE("engine ring all-reduce time halves its bandwidth term when bandwidth doubles", "[engine][collectives]")
{
  const int p = 8;
  const double bytes = 1e9;
  const auto slow = engine::build_topology(testing::synthetic_platform(1, p, kLinkBps, 0.0), p);
  const auto fast = engine::build_topology(testing::synthetic_platform(1, p, 2 * kLinkBps, 0.0), p);
  const double t_slow = testing::time_uncontended(slow, {{testing::first_ranks(p), bytes, model::CollectiveAlgorithm::Ring}});
  const double t_fast = testing::time_uncontended(fast, {{testing::first_ranks(p), bytes, model::CollectiveAlgorithm::Ring}});
  CHECK(t_fast == Approx(t_slow / 2).epsilon(1e-6));
}

TEST_CASE("engine ring reduce-scatter and all-gather match (p-1)a + (p-1)/p S/B", "[engine][collectives]")
{
  const double bytes = 48e6;
  for (int p : {2, 6, 16}) {
    const auto topology = engine::build_topology(testing::synthetic_platform(1, p, kLinkBps, kHopLatency_s), p);
    const double expected = (p - 1) * 2 * kHopLatency_s + (p - 1.0) / p * bytes / kLinkBps;
    for (auto op : {engine::CollectiveOp::ReduceScatter, engine::CollectiveOp::AllGather})
      for (auto algorithm : {model::CollectiveAlgorithm::Ring, model::CollectiveAlgorithm::RingFlow}) {
        const auto timing =
            testing::time_collectives_detailed(topology, {{testing::first_ranks(p), bytes, algorithm, op}});
        INFO("p = " << p << ", " << engine::to_string(op) << ", " << model::to_string(algorithm));
        CHECK(timing.end_s == Approx(expected).epsilon(1e-6));
        CHECK(testing::time_collectives_analytically(topology, {{testing::first_ranks(p), bytes, algorithm, op}}) ==
              Approx(expected).epsilon(1e-6));
        CHECK(timing.bytes_sent_rank0 == Approx((p - 1.0) / p * bytes).epsilon(1e-9));
      }
  }
}

TEST_CASE("engine halving-doubling all-reduce matches 2 log2(p) a + 2(p-1)/p S/B", "[engine][collectives]")
{
  const double bytes = 32e6;
  for (int p : {2, 4, 8, 32}) {
    const auto topology = engine::build_topology(testing::synthetic_platform(1, p, kLinkBps, kHopLatency_s), p);
    const double expected = 2 * std::log2(p) * 2 * kHopLatency_s + 2.0 * (p - 1) / p * bytes / kLinkBps;
    const double simulated = testing::time_uncontended(
        topology, {{testing::first_ranks(p), bytes, model::CollectiveAlgorithm::HalvingDoubling}});
    INFO("p = " << p);
    CHECK(simulated == Approx(expected).epsilon(1e-6));
  }
}

namespace {

// n nodes x g GPUs on a rail-optimised fabric, one NIC per GPU: inside a node alpha_i = 2 hops over
// NVSwitch; across nodes a GPU reaches the same-index GPU of another node through its own NIC and
// rail switch: GPU -> NIC (PCIe 64 GB/s, 1 us) -> rail (NIC 25 GB/s, 1 us + half the 0.5 us switch
// latency) -> NIC -> GPU, so alpha_e = 2 + 2 + 0.5 us and B_e = 25 GB/s. Every ring is uncontended.
struct Hierarchy {
  int nodes;
  int per_node;
  double alpha_i = 2 * kHopLatency_s;
  double bandwidth_i = kLinkBps;
  double alpha_e = 4.5e-6;
  double bandwidth_e = 25e9;
};

engine::TopologyGraph rail_topology(const Hierarchy& h)
{
  return engine::build_topology(testing::synthetic_platform(h.nodes, h.per_node, kLinkBps, kHopLatency_s, 25e9,
                                                            model::FabricTopology::RailOptimized),
                                h.nodes * h.per_node);
}

/// A pipelined hierarchical collective: the slower of its two lanes (each with all its latencies),
/// plus the fill: the faster lane's latencies and its bandwidth time over the chunks
/// (kPipelineChunkBytes per rail). With one chunk, the two lanes one after the other.
double pipelined_s(double intra_latency_s, double intra_bandwidth_s, double cross_latency_s, double cross_bandwidth_s,
                   double bytes, int per_node)
{
  const double chunks = std::max(1.0, std::floor(bytes / (engine::kPipelineChunkBytes * per_node)));
  const double intra_s = intra_latency_s + intra_bandwidth_s;
  const double cross_s = cross_latency_s + cross_bandwidth_s;
  const bool intra_faster = intra_s <= cross_s;
  const double fill_s = intra_faster ? intra_latency_s + intra_bandwidth_s / chunks
                                     : cross_latency_s + cross_bandwidth_s / chunks;
  return std::max(intra_s, cross_s) + fill_s;
}

/// The closed form of hierarchical `op` of `s` bytes on `h`: intra-node phases on one lane,
/// cross-node ones on the other (RingExecution); per step and at flow level alike, since a lane pays
/// the latencies its flows did not at its own end.
double hierarchical_closed_form(const Hierarchy& h, engine::CollectiveOp op, double s)
{
  const double g = h.per_node;
  const double n = h.nodes;
  const int intra_phases = op == engine::CollectiveOp::AllReduce ? 2 : 1; // reduce-scatter (+ all-gather)
  const int cross_rounds = op == engine::CollectiveOp::AllReduce ? 2 : 1;
  return pipelined_s(intra_phases * (g - 1) * h.alpha_i, intra_phases * (g - 1) / g * s / h.bandwidth_i,
                     cross_rounds * (n - 1) * h.alpha_e, cross_rounds * (n - 1) / n * s / (g * h.bandwidth_e), s,
                     h.per_node);
}

} // namespace

TEST_CASE("engine hierarchical all-reduce, reduce-scatter and all-gather match their pipelined closed forms", "[engine][collectives]")
{
  for (const double s : {96e6, 1e9, 786432.0}) { // many chunks, many more, one (no overlap to gain)
    for (const Hierarchy h : {Hierarchy{2, 4}, Hierarchy{4, 8}, Hierarchy{3, 2}}) {
      const auto topology = rail_topology(h);
      const auto ranks = testing::first_ranks(h.nodes * h.per_node);
      for (auto algorithm : {model::CollectiveAlgorithm::Hierarchical, model::CollectiveAlgorithm::HierarchicalFlow}) {
        INFO(s << " B, " << h.nodes << " nodes x " << h.per_node << " GPUs, " << model::to_string(algorithm));
        for (auto op : {engine::CollectiveOp::AllReduce, engine::CollectiveOp::ReduceScatter, engine::CollectiveOp::AllGather}) {
          INFO(engine::to_string(op));
          CHECK(testing::time_uncontended(topology, {{ranks, s, algorithm, op}}) ==
                Approx(hierarchical_closed_form(h, op, s)).epsilon(1e-6));
        }
      }
    }
  }
}

TEST_CASE("engine pipelined hierarchical all-reduce approaches its slower lane as chunks grow", "[engine][collectives]")
{
  // 1 GB on 4 nodes x 8 GPUs with 400 GB/s NVLink: the NIC lane (25 GB/s x 8 rails) is the slower;
  // the NVLink lane and the fill add less than 1 % to it, where one phase after the other would add
  // the whole NVLink time.
  Hierarchy h{4, 8};
  h.bandwidth_i = 400e9;
  const double s = 1e9;
  const double n = h.nodes, g = h.per_node;
  const double cross_s = 2 * (n - 1) / n * s / (g * h.bandwidth_e);
  const double intra_s = 2 * (g - 1) / g * s / h.bandwidth_i;
  const auto topology = engine::build_topology(testing::synthetic_platform(h.nodes, h.per_node, h.bandwidth_i, kHopLatency_s,
                                                                           25e9, model::FabricTopology::RailOptimized),
                                               32);
  const double t = testing::time_uncontended(topology, {{testing::first_ranks(32), s, model::CollectiveAlgorithm::HierarchicalFlow}});
  CHECK(t == Approx(hierarchical_closed_form(h, engine::CollectiveOp::AllReduce, s)).epsilon(1e-6));
  CHECK(t > cross_s);
  CHECK(t < 1.01 * cross_s);
  CHECK(t < 0.8 * (cross_s + intra_s));
}

TEST_CASE("engine flat ring across nodes runs one channel per rail: bounded by the NICs together", "[engine][collectives]")
{
  // 8 nodes x 8 GPUs, one 25 GB/s NIC per GPU: each of the 8 channels carries S/8 and crosses the
  // network through its own rail, so the bandwidth term is 2(p-1)/p (S/8) / B_e, not 2(p-1)/p S / B_e
  // through one NIC; the NVLink hops carry 7/8 of every GPU's bytes on its 100 GB/s port.
  const Hierarchy h{8, 8};
  const auto topology = rail_topology(h);
  const auto ranks = testing::first_ranks(64);
  const double s = 256e6;
  const double p = 64;
  const double steps = 2 * (p - 1);
  const double chunk = s / p / 8;
  // Per step every channel moves a chunk; a GPU's NVLink port carries the 7 intra-node channels
  // (7 chunks at 100 GB/s) and its NIC one (at 25 GB/s): the NIC hop is the slower.
  const double step_s = std::max(7 * chunk / h.bandwidth_i + h.alpha_i, chunk / h.bandwidth_e + h.alpha_e);
  const double ring = testing::time_uncontended(topology, {{ranks, s, model::CollectiveAlgorithm::Ring}});
  CHECK(ring == Approx(steps * step_s).epsilon(1e-6));
  const double one_nic = 2 * (p - 1) / p * s / h.bandwidth_e;
  CHECK(ring < 0.25 * one_nic); // the rest is the 2(p-1) route latencies
}

TEST_CASE("engine::choose_algorithm picks as NCCL roughly would", "[engine][collectives]")
{
  using model::CollectiveAlgorithm;
  // The flow-level forms at every size; the per-step forms only when named.
  CHECK(engine::choose_algorithm(CollectiveAlgorithm::Auto, false) == CollectiveAlgorithm::RingFlow);
  CHECK(engine::choose_algorithm(CollectiveAlgorithm::Auto, true) == CollectiveAlgorithm::HierarchicalFlow);
  CHECK(engine::choose_algorithm(CollectiveAlgorithm::Ring, true) == CollectiveAlgorithm::Ring);
  CHECK(engine::choose_algorithm(CollectiveAlgorithm::Hierarchical, true) == CollectiveAlgorithm::Hierarchical);
}

TEST_CASE("engine::plan_collective under auto takes the faster estimate: halving-doubling and LL for small all-reduces",
          "[engine][collectives]")
{
  // 4 nodes x 8 GPUs with NCCL-like costs: tiny all-reduces go latency-bound (halving-doubling, LL),
  // large ones bandwidth-bound (the pipelined hierarchy, Simple); the estimate never drops with size.
  const auto topology = rail_topology(Hierarchy{4, 8});
  model::LinkFractions links;
  links.collective_fixed_s = 5e-6;
  links.simple_step_s = 2e-6;
  const auto shape = engine::make_communicator_layout(testing::first_ranks(32), topology, links).shape();
  using engine::CollectiveOp;
  const auto small = engine::plan_collective(CollectiveOp::AllReduce, model::CollectiveAlgorithm::Auto, shape, 4096);
  CHECK(small.algorithm == "halving_doubling");
  CHECK(small.execution.protocol == engine::Protocol::LowLatency);
  const auto large = engine::plan_collective(CollectiveOp::AllReduce, model::CollectiveAlgorithm::Auto, shape, 1e9);
  CHECK(large.algorithm == "hierarchical_flow+tree");
  CHECK(large.execution.protocol == engine::Protocol::Simple);
  CHECK(large.execution.pipelined);
  double previous_s = 0;
  for (double bytes = 8; bytes <= 4e9; bytes *= 2) {
    const auto plan = engine::plan_collective(CollectiveOp::AllReduce, model::CollectiveAlgorithm::Auto, shape, bytes);
    INFO(bytes << " B: " << plan.algorithm);
    CHECK(plan.estimate_s >= previous_s);
    previous_s = plan.estimate_s;
  }
  // Named algorithms are not replaced.
  CHECK(engine::plan_collective(CollectiveOp::AllReduce, model::CollectiveAlgorithm::Ring, shape, 4096).algorithm == "ring");
}

TEST_CASE("engine auto all-reduce in an NVLS switch moves (1 + 1/p) S at NVLS's fraction, against the ring's 2(p-1)/p S",
          "[engine][collectives]")
{
  // Each GPU reduces its share in the switch and multicasts it (InSwitchAllReduce.hpp): every link
  // carries (1 + 1/p) S per direction; the route up and down is paid twice, a = 2 hops.
  const double bytes = 64e6;
  for (int p : {4, 8}) {
    auto platform = testing::synthetic_platform(1, p, kLinkBps, kHopLatency_s);
    for (auto& [name, node] : platform.node_types)
      node.in_switch_reduction = true;
    const auto topology = engine::build_topology(platform, p);
    const double alpha = 2 * kHopLatency_s;
    INFO(p << " GPUs");
    CHECK(testing::time_uncontended(topology, {{testing::first_ranks(p), bytes, model::CollectiveAlgorithm::Auto}}) ==
          Approx((1.0 + 1.0 / p) * bytes / kLinkBps + 2 * alpha).epsilon(1e-6));
    // Asked for by name, the ring stays a ring on the same switch.
    CHECK(testing::time_uncontended(topology, {{testing::first_ranks(p), bytes, model::CollectiveAlgorithm::Ring}}) ==
          Approx(ring_closed_form(p, bytes)).epsilon(1e-6));
    // With the links at their fractions, NVLS moves its bytes at the NVLS fraction and the ring at the
    // link's: 8 H100-like GPUs reach NCCL's measured algbw ratio, 0.6875 / (1 + 1/8) against
    // 0.822 / (2 x 7/8) of the line rate.
    model::LinkFractions links;
    links.fraction = {{"nvswitch", 0.822}, {"nvls", 0.6875}};
    auto at_fractions = engine::build_topology(platform, p);
    engine::apply_link_fractions(at_fractions, links);
    const double nvls =
        testing::time_uncontended(at_fractions, {{testing::first_ranks(p), bytes, model::CollectiveAlgorithm::Auto}}, links);
    CHECK(nvls == Approx((1.0 + 1.0 / p) * bytes / (0.6875 * kLinkBps) + 2 * alpha).epsilon(1e-6));
  }
}

TEST_CASE("engine auto hierarchical all-reduce: SHARP across nodes moves S/g once, without it tree latency",
          "[engine][collectives]")
{
  const double s = 96e6;
  for (const Hierarchy h : {Hierarchy{4, 8}, Hierarchy{16, 8}, Hierarchy{33, 2}, Hierarchy{5, 4}}) {
    const double g = h.per_node;
    const double n = h.nodes;
    const auto ranks = testing::first_ranks(h.nodes * h.per_node);
    auto platform = testing::synthetic_platform(h.nodes, h.per_node, kLinkBps, kHopLatency_s, 25e9,
                                                model::FabricTopology::RailOptimized);
    const auto plain = engine::build_topology(platform, h.nodes * h.per_node);
    const double intra_latency_s = 2 * (g - 1) * h.alpha_i;
    const double intra_s = 2 * (g - 1) / g * s / h.bandwidth_i;
    const double ring_s = 2 * (n - 1) / n * s / (g * h.bandwidth_e);
    // Without SHARP: the tree's 2 ceil(log2 n) latencies instead of the ring's 2(n-1).
    const int log2_n = static_cast<int>(std::ceil(std::log2(n)));
    const double tree = pipelined_s(intra_latency_s, intra_s, 2 * log2_n * h.alpha_e, ring_s, s, h.per_node);
    platform.fabric.in_network_reduction = true;
    const auto sharp_topology = engine::build_topology(platform, h.nodes * h.per_node);
    // SHARP: S/g up and down once, the route latency twice.
    const double sharp = pipelined_s(intra_latency_s, intra_s, 2 * h.alpha_e, s / (g * h.bandwidth_e), s, h.per_node);
    INFO(h.nodes << " nodes x " << h.per_node << " GPUs");
    const engine::CollectiveOp all_reduce = engine::CollectiveOp::AllReduce;
    CHECK(testing::time_uncontended(plain, {{ranks, s, model::CollectiveAlgorithm::Auto, all_reduce}}) ==
          Approx(tree).epsilon(1e-6));
    CHECK(testing::time_uncontended(sharp_topology, {{ranks, s, model::CollectiveAlgorithm::Auto, all_reduce}}) ==
          Approx(sharp).epsilon(1e-6));
    // The named algorithms keep their rings on either fabric.
    CHECK(testing::time_uncontended(sharp_topology,
                                    {{ranks, s, model::CollectiveAlgorithm::HierarchicalFlow, all_reduce}}) ==
          Approx(hierarchical_closed_form(h, all_reduce, s)).epsilon(1e-6));
  }
}

TEST_CASE("engine::choose_switch_reduction takes NVLS, SHARP or the tree only under auto, for all-reduces",
          "[engine][collectives]")
{
  using model::CollectiveAlgorithm;
  using engine::CollectiveOp;
  using engine::SwitchReduction;
  const auto shortcut = [](CollectiveAlgorithm requested, CollectiveAlgorithm chosen, CollectiveOp op, bool in_switch,
                           bool in_network) {
    return engine::choose_switch_reduction(requested, chosen, op, 64, in_switch, in_network);
  };
  const auto all_reduce = CollectiveOp::AllReduce;
  CHECK(shortcut(CollectiveAlgorithm::Auto, CollectiveAlgorithm::RingFlow, all_reduce, true, false) ==
        SwitchReduction::InSwitch);
  CHECK(shortcut(CollectiveAlgorithm::Auto, CollectiveAlgorithm::RingFlow, all_reduce, false, false) ==
        SwitchReduction::None);
  CHECK(shortcut(CollectiveAlgorithm::Auto, CollectiveAlgorithm::HierarchicalFlow, all_reduce, false, true) ==
        SwitchReduction::InNetwork);
  CHECK(shortcut(CollectiveAlgorithm::Auto, CollectiveAlgorithm::HierarchicalFlow, all_reduce, false, false) ==
        SwitchReduction::TreeLatency);
  // auto never resolves to the per-step forms; they take no shortcut.
  CHECK(shortcut(CollectiveAlgorithm::Auto, CollectiveAlgorithm::Hierarchical, all_reduce, true, true) ==
        SwitchReduction::None);
  CHECK(shortcut(CollectiveAlgorithm::Auto, CollectiveAlgorithm::HalvingDoubling, all_reduce, true, true) ==
        SwitchReduction::None);
  CHECK(shortcut(CollectiveAlgorithm::Auto, CollectiveAlgorithm::HierarchicalFlow, CollectiveOp::AllGather, true, true) ==
        SwitchReduction::None);
  CHECK(shortcut(CollectiveAlgorithm::Ring, CollectiveAlgorithm::Ring, all_reduce, true, true) == SwitchReduction::None);
  CHECK(engine::choose_switch_reduction(CollectiveAlgorithm::Auto, CollectiveAlgorithm::RingFlow, all_reduce, 1, true, true) ==
        SwitchReduction::None);
  CHECK(engine::describe_algorithm(CollectiveAlgorithm::HierarchicalFlow, SwitchReduction::InNetwork) ==
        "hierarchical_flow+sharp");
  CHECK(engine::describe_algorithm(CollectiveAlgorithm::RingFlow, SwitchReduction::InSwitch) == "nvls");
  CHECK(engine::describe_algorithm(CollectiveAlgorithm::Hierarchical, SwitchReduction::None) == "hierarchical");
}
