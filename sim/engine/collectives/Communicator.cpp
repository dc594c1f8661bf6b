#include "sim/engine/collectives/Communicator.hpp"

#include <simgrid/s4u/Link.hpp>

namespace gpuscale::engine {
namespace {

Communicator make_ring(const std::string& name, std::vector<simgrid::s4u::Host*> hosts)
{
  Communicator comm;
  comm.name = name;
  comm.hosts = std::move(hosts);
  const std::size_t p = comm.hosts.size();
  for (std::size_t rank = 0; rank < p; ++rank) {
    comm.inboxes.push_back(simgrid::s4u::Mailbox::by_name(name + "/" + std::to_string(rank)));
    double latency_s = 0;
    if (p > 1) {
      std::vector<simgrid::s4u::Link*> links;
      comm.hosts[rank]->route_to(comm.hosts[(rank + 1) % p], links, &latency_s);
    }
    comm.next_route_latency_s.push_back(latency_s);
  }
  return comm;
}

std::vector<simgrid::s4u::Host*> hosts_of(const std::vector<int>& members, const CommunicatorLayout& layout,
                                          const std::vector<simgrid::s4u::Host*>& gpu_hosts)
{
  std::vector<simgrid::s4u::Host*> hosts;
  for (int member : members)
    hosts.push_back(gpu_hosts.at(static_cast<std::size_t>(layout.gpu_ranks.at(static_cast<std::size_t>(member)))));
  return hosts;
}

} // namespace

CommunicatorShape Communicator::shape() const
{
  return {size(), hierarchical(), hierarchical() ? locals.front().size() : 1, in_switch_reduction, in_network_reduction};
}

simgrid::s4u::Mailbox* Communicator::step_inbox(int rank, int step) const
{
  return simgrid::s4u::Mailbox::by_name(name + "/" + std::to_string(rank) + "/step" + std::to_string(step));
}

Communicator make_communicator(const std::string& name, const CommunicatorLayout& layout,
                               const std::vector<simgrid::s4u::Host*>& gpu_hosts)
{
  std::vector<int> all(layout.gpu_ranks.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<int>(i);
  Communicator comm = make_ring(name, hosts_of(all, layout, gpu_hosts));
  comm.in_switch_reduction = layout.in_switch_reduction;
  comm.in_network_reduction = layout.in_network_reduction;
  if (!layout.hierarchical)
    return comm;
  comm.local_of.resize(all.size());
  comm.cross_of.resize(all.size());
  for (std::size_t g = 0; g < layout.locals.size(); ++g) {
    comm.locals.push_back(make_ring(name + "/local" + std::to_string(g), hosts_of(layout.locals[g], layout, gpu_hosts)));
    for (std::size_t r = 0; r < layout.locals[g].size(); ++r)
      comm.local_of[static_cast<std::size_t>(layout.locals[g][r])] = {static_cast<int>(g), static_cast<int>(r)};
  }
  for (std::size_t g = 0; g < layout.crosses.size(); ++g) {
    comm.crosses.push_back(make_ring(name + "/cross" + std::to_string(g), hosts_of(layout.crosses[g], layout, gpu_hosts)));
    for (std::size_t r = 0; r < layout.crosses[g].size(); ++r)
      comm.cross_of[static_cast<std::size_t>(layout.crosses[g][r])] = {static_cast<int>(g), static_cast<int>(r)};
  }
  return comm;
}

} // namespace gpuscale::engine
