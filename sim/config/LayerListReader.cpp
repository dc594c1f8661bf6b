#include "sim/config/LayerListReader.hpp"

#include "sim/config/LayerReader.hpp"
#include "sim/config/MappingReader.hpp"

#include <set>

namespace gpuscale::config {
namespace {

/// Where a layer name of a repeat group's block takes the copy's index.
const std::string kIndexPlaceholder = "{i}";
/// Bound of `first_index`: the indices stay far from overflow and print as short integers.
constexpr long long kMaxFirstIndex = 1'000'000'000LL;

/// `name` with every "{i}" replaced by `index`.
std::string name_in_copy(const std::string& name, long long index)
{
  const std::string digits = std::to_string(index);
  std::string out;
  std::size_t from = 0;
  for (std::size_t at; (at = name.find(kIndexPlaceholder, from)) != std::string::npos; from = at + kIndexPlaceholder.size())
    out.append(name, from, at - from).append(digits);
  return out.append(name, from, std::string::npos);
}

/// The list being read: its layers so far and their names, where problems go.
struct LayerList {
  const std::string& file;
  Diagnostics& diagnostics;
  std::vector<model::Layer> layers;
  std::set<std::string> names;
  int blocks = 0; ///< repeat-group copies expanded so far (model::Layer::block)
};

/// An entry of a layer list (a layer or a repeat group), read through its own mapping reader; the
/// reader stays with the entry so that later problems (name collisions) are located at its `name`.
MappingReader entry_reader(const YAML::Node& entry, const std::string& path, LayerList& list)
{
  return MappingReader(entry, list.file, path, list.diagnostics);
}

void read_plain_layer(MappingReader entry, LayerList& list)
{
  model::Layer layer = read_layer(entry);
  if (layer.name.find(kIndexPlaceholder) != std::string::npos)
    entry.error("name", "'" + kIndexPlaceholder + "' stands for the copy index of a repeat group, and layer '" +
                            layer.name + "' is in none");
  else if (!layer.name.empty() && !list.names.insert(layer.name).second)
    entry.error("name", "duplicate layer name '" + layer.name + "'");
  list.layers.push_back(std::move(layer));
}

/// A layer plus its kernels: the records the expanded trace holds in memory.
long long items_of(const model::Layer& layer) { return 1 + static_cast<long long>(layer.kernels.size()); }

/// One layer of a repeat group's block, read once, with the reader of where it was written.
struct BlockLayer {
  model::Layer layer;
  MappingReader entry;
};

/// The layers of a group's block; a nested group is refused (nothing needs one yet, and the index of
/// an inner copy would need a second placeholder).
std::vector<BlockLayer> read_block(const YAML::Node& block, const std::string& path, LayerList& list)
{
  std::vector<BlockLayer> out;
  for (std::size_t i = 0; i < block.size(); ++i) {
    MappingReader entry = entry_reader(block[i], path + "/" + std::to_string(i), list);
    if (entry.has("repeat")) {
      entry.error("repeat", "repeat groups do not nest: write the inner block's layers out in the outer block");
      continue;
    }
    out.push_back({read_layer(entry), entry});
  }
  return out;
}

/// Appends `count` copies of `block`, the first with index `first_index`. A block layer whose names
/// collide is reported once, with its first collision, and the reports come in the block's order.
void expand_block(const std::vector<BlockLayer>& block, long long count, long long first_index, LayerList& list)
{
  std::vector<std::string> problem(block.size());
  for (std::size_t t = 0; t < block.size(); ++t)
    if (count > 1 && !block[t].layer.name.empty() && block[t].layer.name.find(kIndexPlaceholder) == std::string::npos)
      problem[t] = "layer name '" + block[t].layer.name + "' is the same in all " + std::to_string(count) +
                   " copies of the repeat group: write '" + kIndexPlaceholder + "' where the copy's index goes";
  for (long long copy = 0; copy < count; ++copy, ++list.blocks)
    for (std::size_t t = 0; t < block.size(); ++t) {
      model::Layer layer = block[t].layer;
      layer.block = list.blocks;
      layer.name = name_in_copy(layer.name, first_index + copy);
      if (!layer.name.empty() && !list.names.insert(layer.name).second && problem[t].empty())
        problem[t] = "duplicate layer name '" + layer.name + "' (copy " + kIndexPlaceholder + " = " +
                     std::to_string(first_index + copy) + " of the repeat group)";
      list.layers.push_back(std::move(layer));
    }
  for (std::size_t t = 0; t < block.size(); ++t)
    if (!problem[t].empty())
      block[t].entry.error("name", problem[t]);
}

void read_repeat_group(MappingReader group, LayerList& list)
{
  const auto count = group.integer("repeat", 1, kMaxRepeat, Presence::Required);
  const long long first_index = group.integer("first_index", 0, kMaxFirstIndex, Presence::Optional).value_or(0);
  const auto block_node = group.child("layers", Presence::Required);
  group.finish();
  if (!block_node || !expect_sequence(*block_node, list.file, group.path_of("layers"), list.diagnostics))
    return;
  const std::vector<BlockLayer> block = read_block(*block_node, group.path_of("layers"), list);
  if (!count)
    return;
  long long expanded = 0;
  for (const auto& layer : list.layers)
    expanded += items_of(layer);
  for (const auto& layer : block)
    expanded += *count * items_of(layer.layer);
  if (expanded > kMaxExpandedItems) {
    group.error("repeat", "the trace would expand to " + std::to_string(expanded) + " layers and kernels, more than " +
                              std::to_string(kMaxExpandedItems));
    return;
  }
  expand_block(block, *count, first_index, list);
}

} // namespace

std::vector<model::Layer> read_layer_list(const YAML::Node& list_node, const std::string& file, const std::string& path,
                                          Diagnostics& diagnostics)
{
  LayerList list{file, diagnostics, {}, {}, 0};
  for (std::size_t i = 0; i < list_node.size(); ++i) {
    MappingReader entry = entry_reader(list_node[i], path + "/" + std::to_string(i), list);
    if (entry.has("repeat"))
      read_repeat_group(entry, list);
    else
      read_plain_layer(entry, list);
  }
  return std::move(list.layers);
}

} // namespace gpuscale::config
