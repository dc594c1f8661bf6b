#include "sim/engine/collectives/Communicator.hpp"

#include <simgrid/s4u/Link.hpp>

namespace gpuscale::engine {
namespace {

SimRingGroup make_group(const std::string& name, const RingGroup& group, const std::vector<simgrid::s4u::Host*>& hosts)
{
  SimRingGroup out;
  out.layout = group;
  const std::size_t q = group.members.size();
  for (std::size_t c = 0; c < group.channels.size(); ++c) {
    const std::string prefix = name + "/c" + std::to_string(c) + "/";
    std::vector<simgrid::s4u::Mailbox*> inboxes;
    std::vector<double> latencies;
    for (std::size_t i = 0; i < q; ++i) {
      inboxes.push_back(simgrid::s4u::Mailbox::by_name(prefix + std::to_string(i)));
      double latency_s = 0;
      if (q > 1) {
        std::vector<simgrid::s4u::Link*> links;
        const auto next = static_cast<std::size_t>(group.channels[c][i]);
        hosts[static_cast<std::size_t>(group.members[i])]->route_to(
            hosts[static_cast<std::size_t>(group.members[next])], links, &latency_s);
      }
      latencies.push_back(latency_s);
    }
    out.inboxes.push_back(std::move(inboxes));
    out.next_route_latency_s.push_back(std::move(latencies));
  }
  return out;
}

} // namespace

simgrid::s4u::Mailbox* Communicator::step_inbox(int rank, int step) const
{
  return simgrid::s4u::Mailbox::by_name(name + "/" + std::to_string(rank) + "/step" + std::to_string(step));
}

Communicator make_communicator(const std::string& name, const CommunicatorLayout& layout,
                               const std::vector<simgrid::s4u::Host*>& gpu_hosts)
{
  Communicator comm;
  comm.name = name;
  for (int gpu : layout.gpu_ranks)
    comm.hosts.push_back(gpu_hosts.at(static_cast<std::size_t>(gpu)));
  comm.layout_shape = layout.shape();
  comm.whole = make_group(name, layout.whole, comm.hosts);
  if (!layout.hierarchical)
    return comm;
  comm.local_of.resize(comm.hosts.size());
  comm.cross_of.resize(comm.hosts.size());
  for (std::size_t g = 0; g < layout.locals.size(); ++g) {
    comm.locals.push_back(make_group(name + "/local" + std::to_string(g), layout.locals[g], comm.hosts));
    for (std::size_t r = 0; r < layout.locals[g].members.size(); ++r)
      comm.local_of[static_cast<std::size_t>(layout.locals[g].members[r])] = {static_cast<int>(g), static_cast<int>(r)};
  }
  for (std::size_t g = 0; g < layout.crosses.size(); ++g) {
    comm.crosses.push_back(make_group(name + "/cross" + std::to_string(g), layout.crosses[g], comm.hosts));
    for (std::size_t r = 0; r < layout.crosses[g].members.size(); ++r)
      comm.cross_of[static_cast<std::size_t>(layout.crosses[g].members[r])] = {static_cast<int>(g), static_cast<int>(r)};
  }
  return comm;
}

} // namespace gpuscale::engine
