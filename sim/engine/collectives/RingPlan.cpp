#include "sim/engine/collectives/RingPlan.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <array>
#include <cmath>

namespace gpuscale::engine {
namespace {

int ceil_log2(int value)
{
  int log = 0;
  while ((1 << log) < value)
    ++log;
  return log;
}

/// One member's part of one phase on the platform.
struct MemberPhase {
  const SimRingGroup* group = nullptr;
  int member = 0;
  int channels = 0; ///< channels it sends on (in-network phases: one)
  bool cross = false; ///< a cross-node phase (its pipeline lane: RingExecution)
  PhaseTransfers transfers;
  uint64_t bytes = 0;
};

/// One transfer of every phase in `phases` at once: on each channel, send to the successor and
/// receive as much from the predecessor.
void exchange_once(const std::vector<const MemberPhase*>& phases, CollectiveCounters& counters)
{
  if (phases.size() == 1 && phases.front()->channels == 1) { // the common case, without vectors
    const MemberPhase& p = *phases.front();
    const int next = p.group->layout.channels[0][static_cast<std::size_t>(p.member)];
    auto send = p.group->inboxes[0][static_cast<std::size_t>(next)]->put_async(&counters, p.bytes);
    p.group->inboxes[0][static_cast<std::size_t>(p.member)]->get<CollectiveCounters>();
    send->wait();
    counters.bytes_sent += static_cast<double>(p.bytes);
    counters.bytes_received += static_cast<double>(p.bytes);
    return;
  }
  std::vector<simgrid::s4u::CommPtr> sends, receives;
  std::vector<CollectiveCounters*> received;
  for (const MemberPhase* p : phases)
    for (int c = 0; c < p->channels; ++c) {
      const auto channel = static_cast<std::size_t>(c);
      const int next = p->group->layout.channels[channel][static_cast<std::size_t>(p->member)];
      sends.push_back(p->group->inboxes[channel][static_cast<std::size_t>(next)]->put_async(&counters, p->bytes));
    }
  received.resize(sends.size());
  std::size_t k = 0;
  for (const MemberPhase* p : phases)
    for (int c = 0; c < p->channels; ++c)
      receives.push_back(p->group->inboxes[static_cast<std::size_t>(c)][static_cast<std::size_t>(p->member)]
                             ->get_async<CollectiveCounters>(&received[k++]));
  simgrid::s4u::Comm::wait_all(receives);
  simgrid::s4u::Comm::wait_all(sends);
  for (const MemberPhase* p : phases) {
    counters.bytes_sent += p->channels * static_cast<double>(p->bytes);
    counters.bytes_received += p->channels * static_cast<double>(p->bytes);
  }
}

/// The intra-node and the cross-node lane of a pipelined plan, each its transfers in order, the two
/// independent of each other: a lane posts its next transfer as soon as its current one is done.
/// `unpaid_s[lane]`: the route latencies and step costs each lane's transfers did not pay; a lane
/// ends that long after its last transfer, and the call returns when both lanes have ended.
void run_lanes_in_general(const std::vector<MemberPhase>& phases, const std::array<double, 2>& unpaid_s,
               CollectiveCounters& counters)
{
  struct Lane {
    std::vector<const MemberPhase*> transfers;
    std::size_t next = 0;
    std::vector<simgrid::s4u::CommPtr> pending;
  };
  std::array<Lane, 2> lanes;
  double end_s = simgrid::s4u::Engine::get_clock();
  for (const MemberPhase& p : phases)
    lanes[p.cross ? 1 : 0].transfers.insert(lanes[p.cross ? 1 : 0].transfers.end(),
                                            static_cast<std::size_t>(p.transfers.transfers), &p);
  CollectiveCounters* received = nullptr; // what the gets deliver is not looked at
  const auto start = [&](Lane& lane) {
    const MemberPhase& p = *lane.transfers[lane.next++];
    for (int c = 0; c < p.channels; ++c) {
      const auto channel = static_cast<std::size_t>(c);
      const int next = p.group->layout.channels[channel][static_cast<std::size_t>(p.member)];
      lane.pending.push_back(p.group->inboxes[channel][static_cast<std::size_t>(next)]->put_async(&counters, p.bytes));
      lane.pending.push_back(p.group->inboxes[channel][static_cast<std::size_t>(p.member)]->get_async<CollectiveCounters>(&received));
    }
    counters.bytes_sent += p.channels * static_cast<double>(p.bytes);
    counters.bytes_received += p.channels * static_cast<double>(p.bytes);
  };
  for (Lane& lane : lanes)
    if (!lane.transfers.empty())
      start(lane);
  std::vector<simgrid::s4u::CommPtr> all;
  std::vector<std::pair<std::size_t, std::size_t>> where; // (lane, index in pending) of each of `all`
  while (!lanes[0].pending.empty() || !lanes[1].pending.empty()) {
    all.clear();
    where.clear();
    for (std::size_t l = 0; l < lanes.size(); ++l)
      for (std::size_t k = 0; k < lanes[l].pending.size(); ++k) {
        all.push_back(lanes[l].pending[k]);
        where.emplace_back(l, k);
      }
    const auto done = static_cast<std::size_t>(simgrid::s4u::Comm::wait_any(all));
    Lane& lane = lanes[where[done].first];
    lane.pending.erase(lane.pending.begin() + static_cast<std::ptrdiff_t>(where[done].second));
    if (lane.pending.empty()) {
      if (lane.next < lane.transfers.size())
        start(lane);
      else
        end_s = std::max(end_s, simgrid::s4u::Engine::get_clock() + unpaid_s[where[done].first]);
    }
  }
  if (const double wait_s = end_s - simgrid::s4u::Engine::get_clock(); wait_s > 0)
    simgrid::s4u::this_actor::sleep_for(wait_s);
}

/// run_lanes_in_general when the cross-node lane is one transfer (every flow-level plan): posted at
/// once, waited at the end, while the intra-node lane runs with blocking calls; the same times with
/// one blocking call per transfer instead of one per communication.
void run_lanes(const std::vector<MemberPhase>& phases, const std::array<double, 2>& unpaid_s,
               CollectiveCounters& counters)
{
  std::array<std::vector<const MemberPhase*>, 2> lanes;
  for (const MemberPhase& p : phases)
    lanes[p.cross ? 1 : 0].insert(lanes[p.cross ? 1 : 0].end(), static_cast<std::size_t>(p.transfers.transfers), &p);
  if (lanes[1].size() > 1) {
    run_lanes_in_general(phases, unpaid_s, counters);
    return;
  }
  CollectiveCounters* received = nullptr; // what the gets deliver is not looked at
  std::vector<simgrid::s4u::CommPtr> cross;
  if (!lanes[1].empty()) {
    const MemberPhase& p = *lanes[1].front();
    for (int c = 0; c < p.channels; ++c) {
      const auto channel = static_cast<std::size_t>(c);
      const int next = p.group->layout.channels[channel][static_cast<std::size_t>(p.member)];
      cross.push_back(p.group->inboxes[channel][static_cast<std::size_t>(next)]->put_async(&counters, p.bytes));
      cross.push_back(p.group->inboxes[channel][static_cast<std::size_t>(p.member)]->get_async<CollectiveCounters>(&received));
    }
    counters.bytes_sent += p.channels * static_cast<double>(p.bytes);
    counters.bytes_received += p.channels * static_cast<double>(p.bytes);
  }
  double end_s = simgrid::s4u::Engine::get_clock();
  for (const MemberPhase* p : lanes[0])
    exchange_once({p}, counters);
  if (!lanes[0].empty())
    end_s = std::max(end_s, simgrid::s4u::Engine::get_clock() + unpaid_s[0]);
  if (!cross.empty()) {
    // The cross transfer may have ended while the intra lane ran: its end is what counts.
    simgrid::s4u::Comm::wait_all(cross);
    double cross_end_s = 0;
    for (const auto& comm : cross)
      cross_end_s = std::max(cross_end_s, comm->get_finish_time());
    end_s = std::max(end_s, cross_end_s + unpaid_s[1]);
  }
  if (const double wait_s = end_s - simgrid::s4u::Engine::get_clock(); wait_s > 0)
    simgrid::s4u::this_actor::sleep_for(wait_s);
}

} // namespace

int flow_level_latencies(const RingPhase& phase, int steps, int q)
{
  return phase.tree_latency ? std::min(steps, 2 * ceil_log2(q)) : steps;
}

PhaseTransfers phase_transfers(const RingPhase& phase, Granularity granularity, int q, int channels,
                               double wire_factor)
{
  PhaseTransfers t;
  if (q < 2 || phase.buffer_bytes <= 0)
    return t;
  if (phase.in_network) { // the switch's own protocol: one transfer, latency up and down
    t.transfers = 1;
    t.bytes = phase.buffer_bytes * phase.wire_bytes_factor;
    t.paid_latencies = 1;
    t.latencies = 2;
    return t;
  }
  t.steps = phase.rounds * (q - 1);
  const double chunk_bytes = phase.buffer_bytes / q / channels * wire_factor;
  if (granularity == Granularity::PerStep) {
    t.transfers = t.steps;
    t.bytes = chunk_bytes;
    t.paid_latencies = t.latencies = t.steps;
  } else {
    t.transfers = 1;
    t.bytes = t.steps * chunk_bytes;
    t.paid_latencies = 1;
    t.latencies = flow_level_latencies(phase, t.steps, q);
  }
  return t;
}

void run_ring_plan(const RingPlan& plan, const RingExecution& execution, const Communicator& comm, int rank,
                   CollectiveCounters& counters)
{
  double unpaid_s = execution.fixed_s + (execution.pipelined ? execution.fill_s : 0.0);
  std::array<double, 2> lane_unpaid_s{0, 0}; // pipelined: what each lane owes at its own end
  std::vector<MemberPhase> phases;
  phases.reserve(plan.size());
  for (const RingPhase& phase : plan) {
    MemberPhase p;
    p.group = &comm.whole;
    p.member = rank;
    if (phase.scope != RingPhase::Scope::Whole) {
      const bool local = phase.scope == RingPhase::Scope::Locals;
      const auto where = (local ? comm.local_of : comm.cross_of)[static_cast<std::size_t>(rank)];
      p.group = &(local ? comm.locals : comm.crosses)[static_cast<std::size_t>(where.group)];
      p.member = where.rank;
    }
    p.channels = phase.in_network ? 1 : p.group->channels();
    p.cross = phase.scope == RingPhase::Scope::Crosses;
    p.transfers = phase_transfers(phase, execution.granularity, p.group->size(), p.group->channels(),
                                  execution.wire_factor);
    if (p.transfers.transfers == 0)
      continue;
    p.bytes = static_cast<uint64_t>(std::llround(p.transfers.bytes));
    double route_latency_s = 0;
    for (int c = 0; c < p.channels; ++c)
      route_latency_s = std::max(route_latency_s, p.group->next_route_latency_s[static_cast<std::size_t>(c)]
                                                                               [static_cast<std::size_t>(p.member)]);
    const double owed_s = (p.transfers.latencies - p.transfers.paid_latencies) * route_latency_s +
                          p.transfers.steps * execution.step_s;
    if (execution.pipelined)
      lane_unpaid_s[p.cross ? 1 : 0] += owed_s;
    else
      unpaid_s += owed_s;
    phases.push_back(p);
  }
  if (!execution.pipelined) {
    for (const MemberPhase& p : phases)
      for (int i = 0; i < p.transfers.transfers; ++i)
        exchange_once({&p}, counters);
  } else {
    run_lanes(phases, lane_unpaid_s, counters);
  }
  if (unpaid_s > 0)
    simgrid::s4u::this_actor::sleep_for(unpaid_s);
}

} // namespace gpuscale::engine
