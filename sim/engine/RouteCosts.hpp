#pragma once
/// The α–β cost of every GPU-to-GPU route a step uses, read off the TopologyGraph as the SimGrid
/// platform builds it: α = the sum of the route's link latencies, β = 1 / its bottleneck rate.
///
/// The rate is what SimGrid's CM02 model gives one flow alone on its route: the slowest link's
/// usable bandwidth (line rate x its fraction), capped by the TCP window at tcp_gamma / (2 α). A transfer of
/// S bytes then takes α + S / rate; flows that share a link are not slowed (no contention).

#include "sim/engine/TopologyGraph.hpp"
#include "sim/model/Scenario.hpp"

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gpuscale::engine {

struct RouteCost {
  double latency_s = 0;   ///< α: sum of the route's link latencies
  double rate_Bps = 0;    ///< 1/β: bottleneck bandwidth, capped by the TCP window
  double window_Bps = 0;  ///< the TCP window's cap alone (infinite without latency)
  std::vector<std::uint32_t> links; ///< directed links crossed: 2 x edge id + (0 forward, 1 backward)
};

class RouteCosts {
public:
  /// Costs of the (src, dst) GPU-rank pairs in `pairs`. Throws std::invalid_argument for a network
  /// model other than CM02 with factors 1 (the only one whose uncontended times are α–β).
  RouteCosts(const TopologyGraph& topology, const std::vector<std::pair<int, int>>& pairs,
             const model::SimgridNetworkConfig& network);

  /// Throws std::logic_error for a pair that was not given to the constructor.
  const RouteCost& cost(int src_rank, int dst_rank) const;
  /// α + bytes / rate, as SimGrid pays it: latency first, then the bytes.
  double transfer_s(int src_rank, int dst_rank, double bytes) const;
  /// The same when `load[link]` transfers of equal size cross each directed link at once: each gets
  /// an equal share of every link it crosses (SimGrid's max-min sharing when all of them are
  /// bottlenecked there, as the channels of one ring step are).
  double shared_transfer_s(int src_rank, int dst_rank, double bytes, const std::vector<int>& load) const;
  /// The usable rate of each directed link (2 x edge id + direction).
  const std::vector<double>& link_rates_Bps() const { return link_rates_Bps_; }

private:
  static std::uint64_t key(int src_rank, int dst_rank);
  std::unordered_map<std::uint64_t, RouteCost> costs_;
  std::vector<double> link_rates_Bps_;
};

} // namespace gpuscale::engine
