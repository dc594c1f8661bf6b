#include "sim/engine/collectives/CommunicatorLayout.hpp"

#include <map>

namespace gpuscale::engine {

bool is_power_of_two(int value)
{
  return value > 0 && (value & (value - 1)) == 0;
}

CommunicatorLayout make_communicator_layout(std::vector<int> gpu_ranks, const std::vector<int>& node_of_gpu)
{
  CommunicatorLayout layout;
  layout.gpu_ranks = std::move(gpu_ranks);
  std::map<int, std::vector<int>> by_node; // node order = first appearance is not needed: node ids sort
  std::vector<int> node_order;
  for (int rank = 0; rank < layout.size(); ++rank) {
    const int node = node_of_gpu.at(static_cast<std::size_t>(layout.gpu_ranks[static_cast<std::size_t>(rank)]));
    if (!by_node.contains(node))
      node_order.push_back(node);
    by_node[node].push_back(rank);
  }
  for (int node : node_order)
    layout.locals.push_back(by_node[node]);
  const std::size_t per_node = layout.locals.front().size();
  bool uniform = true;
  for (const auto& local : layout.locals)
    uniform = uniform && local.size() == per_node;
  layout.hierarchical = uniform && layout.locals.size() > 1 && per_node > 1;
  if (uniform) {
    layout.crosses.assign(per_node, {});
    for (const auto& local : layout.locals)
      for (std::size_t i = 0; i < per_node; ++i)
        layout.crosses[i].push_back(local[i]);
  }
  return layout;
}

void mark_reduction_hardware(CommunicatorLayout& layout, const std::vector<int>& node_of_gpu,
                             const std::vector<bool>& node_in_switch_reduction, bool fabric_in_network_reduction)
{
  if (layout.gpu_ranks.empty())
    return;
  const int node = node_of_gpu.at(static_cast<std::size_t>(layout.gpu_ranks.front()));
  layout.in_switch_reduction = layout.locals.size() == 1 && node_in_switch_reduction.at(static_cast<std::size_t>(node));
  layout.in_network_reduction = layout.locals.size() > 1 && fabric_in_network_reduction;
}

CommunicatorShape CommunicatorLayout::shape() const
{
  return {size(), hierarchical, locals.empty() ? 1 : static_cast<int>(locals.front().size()), in_switch_reduction,
          in_network_reduction};
}

std::vector<std::pair<int, int>> CommunicatorLayout::route_pairs(bool halving_doubling) const
{
  std::vector<std::pair<int, int>> pairs;
  auto add_ring = [&](const std::vector<int>& ring) {
    if (ring.size() < 2)
      return;
    for (std::size_t i = 0; i < ring.size(); ++i)
      pairs.emplace_back(gpu_ranks[static_cast<std::size_t>(ring[i])],
                         gpu_ranks[static_cast<std::size_t>(ring[(i + 1) % ring.size()])]);
  };
  std::vector<int> all(gpu_ranks.size());
  for (std::size_t i = 0; i < all.size(); ++i)
    all[i] = static_cast<int>(i);
  add_ring(all);
  if (hierarchical) {
    for (const auto& local : locals)
      add_ring(local);
    for (const auto& cross : crosses)
      add_ring(cross);
  }
  if (halving_doubling && is_power_of_two(size()))
    for (int rank = 0; rank < size(); ++rank)
      for (int distance = 1; distance < size(); distance <<= 1)
        pairs.emplace_back(gpu_ranks[static_cast<std::size_t>(rank)],
                           gpu_ranks[static_cast<std::size_t>(rank ^ distance)]);
  return pairs;
}

} // namespace gpuscale::engine
