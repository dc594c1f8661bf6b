#include "sim/engine/collectives/AnalyticalCollective.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace gpuscale::engine {
namespace {

/// What the members of one collective share: their layout, routes, clocks and counters.
class Members {
public:
  Members(const CommunicatorLayout& layout, const RouteCosts& routes, std::vector<double>& clock_s,
          std::vector<CollectiveCounters>& counters)
      : layout_(layout), routes_(routes), clock_s_(clock_s), counters_(counters)
  {
  }

  double transfer_s(int from, int to, double bytes) const
  {
    return routes_.transfer_s(gpu(from), gpu(to), bytes);
  }
  double latency_s(int from, int to) const { return routes_.cost(gpu(from), gpu(to)).latency_s; }

  /// `transfers` times, each ring member sends `bytes[k]` (whole bytes, as SimGrid's messages) to
  /// its successor and receives from its predecessor (run_ring_plan's exchange_with_neighbours).
  void ring_exchange(const std::vector<int>& ring, int transfers, const std::vector<double>& bytes)
  {
    const std::size_t q = ring.size();
    std::vector<double> send_end(q);
    for (int t = 0; t < transfers; ++t) {
      for (std::size_t k = 0; k < q; ++k) {
        const int from = ring[k];
        const int to = ring[(k + 1) % q];
        send_end[k] = std::max(clock(from), clock(to)) + transfer_s(from, to, bytes[k]);
      }
      for (std::size_t k = 0; k < q; ++k) {
        clock(ring[k]) = std::max(send_end[k], send_end[(k + q - 1) % q]);
        count(ring[k], bytes[k]);
      }
    }
  }

  /// Every member exchanges `bytes[j]` with member j ^ distance (halving_doubling_all_reduce).
  void pairwise_exchange(int distance, const std::vector<double>& bytes)
  {
    const int p = layout_.size();
    std::vector<double> send_end(static_cast<std::size_t>(p));
    for (int j = 0; j < p; ++j) {
      const int partner = j ^ distance;
      send_end[static_cast<std::size_t>(j)] =
          std::max(clock(j), clock(partner)) + transfer_s(j, partner, bytes[static_cast<std::size_t>(j)]);
    }
    for (int j = 0; j < p; ++j) {
      clock(j) = std::max(send_end[static_cast<std::size_t>(j)], send_end[static_cast<std::size_t>(j ^ distance)]);
      count(j, bytes[static_cast<std::size_t>(j)]);
    }
  }

  double& clock(int member) { return clock_s_[static_cast<std::size_t>(member)]; }

private:
  int gpu(int member) const { return layout_.gpu_ranks[static_cast<std::size_t>(member)]; }
  void count(int member, double bytes)
  {
    counters_[static_cast<std::size_t>(member)].bytes_sent += bytes;
    counters_[static_cast<std::size_t>(member)].bytes_received += bytes;
  }

  const CommunicatorLayout& layout_;
  const RouteCosts& routes_;
  std::vector<double>& clock_s_;
  std::vector<CollectiveCounters>& counters_;
};

double whole_bytes(double bytes)
{
  return static_cast<double>(static_cast<std::uint64_t>(std::llround(bytes)));
}

void halving_doubling(Members& members, int p, const std::vector<double>& bytes)
{
  std::vector<double> chunk = bytes;
  std::vector<double> message(chunk.size());
  auto exchange = [&](int distance) {
    for (std::size_t j = 0; j < chunk.size(); ++j)
      message[j] = whole_bytes(chunk[j]);
    members.pairwise_exchange(distance, message);
  };
  for (int distance = p / 2; distance >= 1; distance /= 2) { // recursive halving
    for (double& c : chunk)
      c /= 2;
    exchange(distance);
  }
  for (int distance = 1; distance < p; distance *= 2) { // recursive doubling
    exchange(distance);
    for (double& c : chunk)
      c *= 2;
  }
}

const std::vector<std::vector<int>>& rings_of(RingPhase::Scope scope, const CommunicatorLayout& layout,
                                              const std::vector<std::vector<int>>& whole)
{
  switch (scope) {
    case RingPhase::Scope::Locals: return layout.locals;
    case RingPhase::Scope::Crosses: return layout.crosses;
    case RingPhase::Scope::Whole: break;
  }
  return whole;
}

/// One phase on one ring, each member with its own phase of its plan (run_ring_plan's loop body).
void ring_phase(Members& members, const std::vector<int>& ring, const std::vector<const RingPhase*>& phase_of,
                Granularity granularity, std::vector<double>& unpaid_latency_s)
{
  const int q = static_cast<int>(ring.size());
  const RingPhase& first = *phase_of[static_cast<std::size_t>(ring.front())];
  if (q < 2 || first.buffer_bytes <= 0)
    return;
  std::vector<double> message(ring.size());
  int transfers = 1;
  for (std::size_t k = 0; k < ring.size(); ++k) {
    const int member = ring[k];
    const RingPhase& phase = *phase_of[static_cast<std::size_t>(member)];
    const double route_latency_s = members.latency_s(member, ring[(k + 1) % ring.size()]);
    if (phase.in_network) {
      message[k] = whole_bytes(phase.buffer_bytes);
      unpaid_latency_s[static_cast<std::size_t>(member)] += route_latency_s;
      continue;
    }
    const int steps = phase.rounds * (q - 1);
    const double chunk_bytes = phase.buffer_bytes / q;
    if (granularity == Granularity::PerStep) {
      transfers = steps;
      message[k] = whole_bytes(chunk_bytes);
    } else {
      message[k] = whole_bytes(steps * chunk_bytes);
      unpaid_latency_s[static_cast<std::size_t>(member)] +=
          (flow_level_latencies(phase, steps, q) - 1) * route_latency_s;
    }
  }
  members.ring_exchange(ring, transfers, message);
}

bool same_shape(const CollectivePlan& a, const CollectivePlan& b)
{
  if (a.halving_doubling != b.halving_doubling || a.granularity != b.granularity || a.rings.size() != b.rings.size())
    return false;
  for (std::size_t f = 0; f < a.rings.size(); ++f)
    if (a.rings[f].scope != b.rings[f].scope || a.rings[f].rounds != b.rings[f].rounds ||
        a.rings[f].in_network != b.rings[f].in_network || a.rings[f].tree_latency != b.rings[f].tree_latency)
      return false;
  return true;
}

} // namespace

void time_collective(CollectiveOp op, model::CollectiveAlgorithm requested, const CommunicatorLayout& layout,
                     const RouteCosts& routes, const std::vector<double>& bytes, std::vector<double>& clock_s,
                     std::vector<CollectiveCounters>& counters)
{
  const int p = layout.size();
  const CommunicatorShape shape = layout.shape();
  std::vector<CollectivePlan> plans;
  plans.reserve(static_cast<std::size_t>(p));
  for (int j = 0; j < p; ++j) {
    plans.push_back(plan_collective(op, requested, shape, bytes[static_cast<std::size_t>(j)]));
    if (!same_shape(plans.front(), plans.back()))
      throw std::logic_error("members of a communicator run different plans for one " + to_string(op));
  }
  if (p < 2)
    return;
  Members members(layout, routes, clock_s, counters);
  const CollectivePlan& plan = plans.front();
  if (plan.halving_doubling) {
    halving_doubling(members, p, bytes);
    return;
  }
  const std::vector<std::vector<int>> whole{[&] {
    std::vector<int> all(static_cast<std::size_t>(p));
    for (int j = 0; j < p; ++j)
      all[static_cast<std::size_t>(j)] = j;
    return all;
  }()};
  std::vector<double> unpaid_latency_s(static_cast<std::size_t>(p), 0.0);
  std::vector<const RingPhase*> phase_of(static_cast<std::size_t>(p));
  for (std::size_t f = 0; f < plan.rings.size(); ++f) {
    for (int j = 0; j < p; ++j)
      phase_of[static_cast<std::size_t>(j)] = &plans[static_cast<std::size_t>(j)].rings[f];
    for (const auto& ring : rings_of(plan.rings[f].scope, layout, whole))
      ring_phase(members, ring, phase_of, plan.granularity, unpaid_latency_s);
  }
  for (int j = 0; j < p; ++j)
    if (unpaid_latency_s[static_cast<std::size_t>(j)] > 0) // slept once, at the end (run_ring_plan)
      members.clock(j) += unpaid_latency_s[static_cast<std::size_t>(j)];
}

} // namespace gpuscale::engine
