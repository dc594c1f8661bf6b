#include "sim/engine/collectives/Communicator.hpp"

#include <simgrid/s4u/Link.hpp>

namespace gpuscale::engine {

Communicator make_ring_communicator(std::string name, std::vector<simgrid::s4u::Host*> hosts)
{
  Communicator comm;
  comm.name = std::move(name);
  comm.hosts = std::move(hosts);
  const std::size_t p = comm.hosts.size();
  for (std::size_t rank = 0; rank < p; ++rank) {
    comm.inboxes.push_back(simgrid::s4u::Mailbox::by_name(comm.name + "/" + std::to_string(rank)));
    double latency_s = 0;
    if (p > 1) {
      std::vector<simgrid::s4u::Link*> links;
      comm.hosts[rank]->route_to(comm.hosts[(rank + 1) % p], links, &latency_s);
    }
    comm.next_route_latency_s.push_back(latency_s);
  }
  return comm;
}

} // namespace gpuscale::engine
