#include "sim/engine/collectives/AnalyticalCollective.hpp"

#include <algorithm>
#include <array>
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
  const RouteCost& route(int from, int to) const { return routes_.cost(gpu(from), gpu(to)); }
  double shared_transfer_s(int from, int to, double bytes, const std::vector<int>& load) const
  {
    return routes_.shared_transfer_s(gpu(from), gpu(to), bytes, load);
  }
  /// Transfers of the current exchange on each directed link (RouteCosts::shared_transfer_s).
  std::vector<int>& load()
  {
    if (load_.empty())
      load_.assign(routes_.link_rates_Bps().size(), 0);
    return load_;
  }
  double latency_s(int from, int to) const { return routes_.cost(gpu(from), gpu(to)).latency_s; }

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
  void count(int member, double bytes)
  {
    counters_[static_cast<std::size_t>(member)].bytes_sent += bytes;
    counters_[static_cast<std::size_t>(member)].bytes_received += bytes;
  }

private:
  int gpu(int member) const { return layout_.gpu_ranks[static_cast<std::size_t>(member)]; }

  const CommunicatorLayout& layout_;
  const RouteCosts& routes_;
  std::vector<double>& clock_s_;
  std::vector<CollectiveCounters>& counters_;
  std::vector<int> load_;
};

double whole_bytes(double bytes)
{
  return static_cast<double>(static_cast<std::uint64_t>(std::llround(bytes)));
}

void halving_doubling(Members& members, int p, const std::vector<double>& bytes, const RingExecution& execution)
{
  std::vector<double> chunk = bytes;
  for (double& c : chunk)
    c *= execution.wire_factor;
  std::vector<double> message(chunk.size());
  auto exchange = [&](int distance) {
    for (std::size_t j = 0; j < chunk.size(); ++j)
      message[j] = whole_bytes(chunk[j]);
    members.pairwise_exchange(distance, message);
  };
  int steps = 0;
  for (int distance = p / 2; distance >= 1; distance /= 2) { // recursive halving
    for (double& c : chunk)
      c /= 2;
    exchange(distance);
    ++steps;
  }
  for (int distance = 1; distance < p; distance *= 2) { // recursive doubling
    exchange(distance);
    ++steps;
    for (double& c : chunk)
      c *= 2;
  }
  for (int j = 0; j < p; ++j) // slept once, at the end (halving_doubling_all_reduce)
    members.clock(j) += execution.fixed_s + steps * execution.step_s;
}

const std::vector<RingGroup>& groups_of(RingPhase::Scope scope, const CommunicatorLayout& layout,
                                        const std::vector<RingGroup>& whole)
{
  switch (scope) {
    case RingPhase::Scope::Locals: return layout.locals;
    case RingPhase::Scope::Crosses: return layout.crosses;
    case RingPhase::Scope::Whole: break;
  }
  return whole;
}

/// One phase on one group, each member with its own phase of its plan (run_ring_plan's MemberPhase).
struct GroupPhase {
  const RingGroup* group = nullptr;
  std::size_t phase = 0;                 ///< index into the plan
  std::vector<PhaseTransfers> transfers; ///< by member of the group
  int channels = 0;
};

/// Transfer `i` of every phase in `active` at once (run_ring_plan's exchange): on each channel a
/// member's transfer to its successor starts once both have reached it; a member goes on once all its
/// sends and receives are done.
using Transfer = std::pair<const GroupPhase*, int>; ///< a phase on a group, and the index of its transfer

void exchange_once(Members& members, const std::vector<Transfer>& active)
{
  struct Flow {
    int from, to;
    double bytes;
  };
  std::vector<Flow> flows;
  for (const auto& [g, i] : active) {
    const RingGroup& group = *g->group;
    const std::size_t q = group.members.size();
    for (int c = 0; c < g->channels; ++c) {
      const RingChannel& next = group.channels[static_cast<std::size_t>(c)];
      for (std::size_t k = 0; k < q; ++k)
        if (i < g->transfers[k].transfers)
          flows.push_back({group.members[k], group.members[static_cast<std::size_t>(next[k])],
                           whole_bytes(g->transfers[k].bytes)});
    }
  }
  // The collective's own transfers of this exchange share the links they have in common (several
  // channels through one GPU port or NIC); other traffic is what this executor leaves out.
  std::vector<int>& load = members.load();
  for (const Flow& f : flows)
    for (std::uint32_t link : members.route(f.from, f.to).links)
      ++load[link];
  std::vector<std::pair<int, double>> done; // (member, end) of every send and receive
  for (const Flow& f : flows) {
    const double end = std::max(members.clock(f.from), members.clock(f.to)) +
                       members.shared_transfer_s(f.from, f.to, f.bytes, load);
    done.emplace_back(f.from, end);
    done.emplace_back(f.to, end);
    members.count(f.from, f.bytes);
  }
  for (const Flow& f : flows)
    for (std::uint32_t link : members.route(f.from, f.to).links)
      --load[link];
  for (const auto& [member, end] : done)
    members.clock(member) = std::max(members.clock(member), end);
}

bool same_shape(const CollectivePlan& a, const CollectivePlan& b)
{
  const RingExecution& x = a.execution;
  const RingExecution& y = b.execution;
  if (a.halving_doubling != b.halving_doubling || x.granularity != y.granularity || x.protocol != y.protocol ||
      x.pipelined != y.pipelined || a.rings.size() != b.rings.size())
    return false;
  for (std::size_t f = 0; f < a.rings.size(); ++f)
    if (a.rings[f].scope != b.rings[f].scope || a.rings[f].rounds != b.rings[f].rounds ||
        a.rings[f].in_network != b.rings[f].in_network || a.rings[f].tree_latency != b.rings[f].tree_latency)
      return false;
  return true;
}

/// Every member's plan for its own bytes: the members of one communicator run the same shape of plan.
std::vector<CollectivePlan> member_plans(CollectiveOp op, model::CollectiveAlgorithm requested,
                                         const CommunicatorLayout& layout, const std::vector<double>& bytes)
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
  return plans;
}

/// What each member owes besides its transfers (fixed cost, pipeline fill, the latencies and steps
/// its transfers do not pay), slept once at the end (run_ring_plan); pipelined, per lane.
struct UnpaidCosts {
  std::vector<double> at_end_s;                  ///< by member
  std::array<std::vector<double>, 2> lane_end_s; ///< pipelined: what each lane owes at its own end, by member
};

UnpaidCosts fixed_costs(const std::vector<CollectivePlan>& plans)
{
  const std::size_t p = plans.size();
  UnpaidCosts unpaid;
  unpaid.at_end_s.assign(p, 0.0);
  unpaid.lane_end_s.fill(std::vector<double>(p, 0.0));
  for (std::size_t j = 0; j < p; ++j) {
    const RingExecution& e = plans[j].execution;
    unpaid.at_end_s[j] = e.fixed_s + (e.pipelined ? e.fill_s : 0.0);
  }
  return unpaid;
}

std::size_t lane_of(const RingPhase& phase) { return phase.scope == RingPhase::Scope::Crosses ? 1 : 0; }

/// The ring phases of the plans on their groups, with each member's transfers (phases without any
/// left out); the latencies and steps those transfers leave unpaid are added to `unpaid`. The
/// phases point into `layout` and `whole`.
std::vector<GroupPhase> ring_phases(const std::vector<CollectivePlan>& plans, const CommunicatorLayout& layout,
                                    const std::vector<RingGroup>& whole, const Members& members, UnpaidCosts& unpaid)
{
  const CollectivePlan& plan = plans.front();
  std::vector<GroupPhase> phases;
  for (std::size_t f = 0; f < plan.rings.size(); ++f)
    for (const RingGroup& group : groups_of(plan.rings[f].scope, layout, whole)) {
      GroupPhase g;
      g.group = &group;
      g.phase = f;
      const int q = group.size();
      g.channels = plan.rings[f].in_network ? 1 : static_cast<int>(group.channels.size());
      bool any = false;
      for (std::size_t k = 0; k < group.members.size(); ++k) {
        const int member = group.members[k];
        const CollectivePlan& own = plans[static_cast<std::size_t>(member)];
        const PhaseTransfers t = phase_transfers(own.rings[f], own.execution.granularity, q,
                                                 static_cast<int>(group.channels.size()), own.execution.wire_factor);
        double route_latency_s = 0;
        for (int c = 0; c < g.channels && t.transfers > 0; ++c)
          route_latency_s = std::max(
              route_latency_s,
              members.latency_s(member, group.members[static_cast<std::size_t>(group.channels[static_cast<std::size_t>(c)][k])]));
        const double owed_s = (t.latencies - t.paid_latencies) * route_latency_s + t.steps * own.execution.step_s;
        if (own.execution.pipelined)
          unpaid.lane_end_s[lane_of(plan.rings[f])][static_cast<std::size_t>(member)] += owed_s;
        else
          unpaid.at_end_s[static_cast<std::size_t>(member)] += owed_s;
        any = any || t.transfers > 0;
        g.transfers.push_back(t);
      }
      if (any)
        phases.push_back(std::move(g));
    }
  return phases;
}

int most_transfers(const GroupPhase& g)
{
  int most = 0;
  for (const auto& t : g.transfers)
    most = std::max(most, t.transfers);
  return most;
}

/// The phases' transfers one exchange after another; pipelined, on two lanes each at its own pace
/// (run_ring_plan's run_lanes): every group of a phase in the same slot of its lane, each lane with
/// its own clocks, a member going on when its slower lane (with what that lane owes) is done.
void exchange_phases(Members& members, const CollectivePlan& plan, const std::vector<GroupPhase>& phases,
                     const UnpaidCosts& unpaid, std::vector<double>& clock_s)
{
  if (!plan.execution.pipelined) {
    for (const GroupPhase& g : phases)
      for (int i = 0, n = most_transfers(g); i < n; ++i)
        exchange_once(members, {{&g, i}});
    return;
  }
  std::array<std::vector<std::vector<Transfer>>, 2> lanes;
  for (std::size_t f = 0; f < plan.rings.size(); ++f) {
    auto& lane = lanes[lane_of(plan.rings[f])];
    int n = 0;
    for (const GroupPhase& g : phases)
      if (g.phase == f)
        n = std::max(n, most_transfers(g));
    const std::size_t first = lane.size();
    lane.resize(first + static_cast<std::size_t>(n));
    for (const GroupPhase& g : phases)
      if (g.phase == f)
        for (int i = 0; i < most_transfers(g); ++i)
          lane[first + static_cast<std::size_t>(i)].emplace_back(&g, i);
  }
  const std::vector<double> start_s = clock_s;
  std::vector<double> end_s = clock_s;
  for (std::size_t l = 0; l < lanes.size(); ++l) {
    clock_s = start_s;
    for (const auto& slot : lanes[l])
      exchange_once(members, slot);
    for (std::size_t j = 0; j < end_s.size(); ++j)
      if (!lanes[l].empty())
        end_s[j] = std::max(end_s[j], clock_s[j] + unpaid.lane_end_s[l][j]);
  }
  clock_s = end_s;
}

} // namespace

void time_collective(CollectiveOp op, model::CollectiveAlgorithm requested, const CommunicatorLayout& layout,
                     const RouteCosts& routes, const std::vector<double>& bytes, std::vector<double>& clock_s,
                     std::vector<CollectiveCounters>& counters)
{
  const int p = layout.size();
  const std::vector<CollectivePlan> plans = member_plans(op, requested, layout, bytes);
  if (p < 2)
    return;
  Members members(layout, routes, clock_s, counters);
  const CollectivePlan& plan = plans.front();
  if (plan.halving_doubling) {
    halving_doubling(members, p, bytes, plan.execution);
    return;
  }
  const std::vector<RingGroup> whole{layout.whole};
  UnpaidCosts unpaid = fixed_costs(plans);
  const std::vector<GroupPhase> phases = ring_phases(plans, layout, whole, members, unpaid);
  exchange_phases(members, plan, phases, unpaid, clock_s);
  for (int j = 0; j < p; ++j) // slept once, at the end (run_ring_plan)
    if (unpaid.at_end_s[static_cast<std::size_t>(j)] > 0)
      members.clock(j) += unpaid.at_end_s[static_cast<std::size_t>(j)];
}

} // namespace gpuscale::engine
