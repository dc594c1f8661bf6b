#include "sim/engine/collectives/Communicator.hpp"

#include <simgrid/s4u/Link.hpp>

namespace gpuscale::engine {
namespace {

/// Folded runs: where a group's inboxes are and which members are simulated.
struct FoldedGroup {
  const FoldedMailboxes* mailboxes = nullptr;
  const std::vector<int>* gpu_ranks = nullptr; ///< by communicator rank
  std::string scope;                           ///< "whole", "local", "cross"
};

SimRingGroup make_group(const std::string& name, const RingGroup& group, const std::vector<simgrid::s4u::Host*>& hosts,
                        const FoldedGroup& folded = {})
{
  SimRingGroup out;
  out.layout = group;
  const std::size_t q = group.members.size();
  for (std::size_t c = 0; c < group.channels.size(); ++c) {
    const std::string prefix = name + "/c" + std::to_string(c) + "/";
    std::vector<simgrid::s4u::Mailbox*> inboxes;
    std::vector<double> latencies;
    for (std::size_t i = 0; i < q; ++i) {
      bool simulated = true;
      if (folded.mailboxes != nullptr) {
        const int gpu = (*folded.gpu_ranks)[static_cast<std::size_t>(group.members[i])];
        const int representative = folded.mailboxes->representative[static_cast<std::size_t>(gpu)];
        simulated = representative == gpu;
        inboxes.push_back(simgrid::s4u::Mailbox::by_name(folded.mailboxes->stream + "/" + folded.scope + "/c" +
                                                         std::to_string(c) + "/" + std::to_string(representative)));
      } else {
        inboxes.push_back(simgrid::s4u::Mailbox::by_name(prefix + std::to_string(i)));
      }
      double latency_s = 0;
      if (q > 1 && simulated) {
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

namespace {

Communicator build_communicator(const std::string& name, const CommunicatorLayout& layout,
                                const std::vector<simgrid::s4u::Host*>& gpu_hosts, const FoldedMailboxes* mailboxes)
{
  const auto folded = [&](const char* scope) {
    return mailboxes != nullptr ? FoldedGroup{mailboxes, &layout.gpu_ranks, scope} : FoldedGroup{};
  };
  Communicator comm;
  comm.name = name;
  for (int gpu : layout.gpu_ranks)
    comm.hosts.push_back(gpu_hosts.at(static_cast<std::size_t>(gpu)));
  comm.layout_shape = layout.shape();
  comm.whole = make_group(name, layout.whole, comm.hosts, folded("whole"));
  if (!layout.hierarchical)
    return comm;
  comm.local_of.resize(comm.hosts.size());
  comm.cross_of.resize(comm.hosts.size());
  for (std::size_t g = 0; g < layout.locals.size(); ++g) {
    comm.locals.push_back(make_group(name + "/local" + std::to_string(g), layout.locals[g], comm.hosts, folded("local")));
    for (std::size_t r = 0; r < layout.locals[g].members.size(); ++r)
      comm.local_of[static_cast<std::size_t>(layout.locals[g].members[r])] = {static_cast<int>(g), static_cast<int>(r)};
  }
  for (std::size_t g = 0; g < layout.crosses.size(); ++g) {
    comm.crosses.push_back(make_group(name + "/cross" + std::to_string(g), layout.crosses[g], comm.hosts, folded("cross")));
    for (std::size_t r = 0; r < layout.crosses[g].members.size(); ++r)
      comm.cross_of[static_cast<std::size_t>(layout.crosses[g].members[r])] = {static_cast<int>(g), static_cast<int>(r)};
  }
  return comm;
}

} // namespace

Communicator make_communicator(const std::string& name, const CommunicatorLayout& layout,
                               const std::vector<simgrid::s4u::Host*>& gpu_hosts)
{
  return build_communicator(name, layout, gpu_hosts, nullptr);
}

Communicator make_communicator(const std::string& name, const CommunicatorLayout& layout,
                               const std::vector<simgrid::s4u::Host*>& gpu_hosts, const FoldedMailboxes& mailboxes)
{
  return build_communicator(name, layout, gpu_hosts, &mailboxes);
}

} // namespace gpuscale::engine
