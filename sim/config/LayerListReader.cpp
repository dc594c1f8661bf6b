#include "sim/config/LayerListReader.hpp"

#include "sim/config/LayerReader.hpp"
#include "sim/config/MappingReader.hpp"

#include <optional>
#include <set>

namespace gpuscale::config {
namespace {

/// Where a layer name of a repeat group's block takes the copy's index.
const std::string kIndexPlaceholder = "{i}";
/// Bound of `first_index`: the indices stay far from overflow and print as short integers.
constexpr long long kMaxFirstIndex = 1'000'000'000LL;

/// The value of `key` in the mapping `node`, or an undefined node (found by iterating: a const lookup
/// of an absent key makes yaml-cpp build a stringstream).
YAML::Node value_of(const YAML::Node& node, const std::string& key)
{
  if (node.IsMap())
    for (const auto& entry : node)
      if (entry.first.IsScalar() && entry.first.Scalar() == key)
        return entry.second;
  return YAML::Node(YAML::NodeType::Undefined);
}

bool is_repeat_group(const YAML::Node& entry) { return value_of(entry, "repeat").IsDefined(); }

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

  /// Reports at the `name` of the entry `entry` (path `path`).
  void report_name(const YAML::Node& entry, const std::string& path, const std::string& message)
  {
    report(diagnostics, file, value_of(entry, "name"), path + "/name", message);
  }
};

void read_plain_layer(const YAML::Node& entry, const std::string& path, LayerList& list)
{
  model::Layer layer = read_layer(MappingReader(entry, list.file, path, list.diagnostics));
  if (layer.name.find(kIndexPlaceholder) != std::string::npos)
    list.report_name(entry, path, "'" + kIndexPlaceholder + "' stands for the copy index of a repeat group, and layer '" +
                                      layer.name + "' is in none");
  else if (!layer.name.empty() && !list.names.insert(layer.name).second)
    list.report_name(entry, path, "duplicate layer name '" + layer.name + "'");
  list.layers.push_back(std::move(layer));
}

/// Layers plus their kernels: the records the expanded trace holds in memory.
long long items_in(const std::vector<model::Layer>& layers)
{
  long long items = 0;
  for (const auto& layer : layers)
    items += 1 + static_cast<long long>(layer.kernels.size());
  return items;
}

/// One layer of a repeat group's block, read once, with where it was written.
struct BlockLayer {
  model::Layer layer;
  YAML::Node entry;
  std::string path;
};

/// The layers of a group's block; a nested group is refused (nothing needs one yet, and the index of
/// an inner copy would need a second placeholder).
std::vector<BlockLayer> read_block(const YAML::Node& block, const std::string& path, LayerList& list)
{
  std::vector<BlockLayer> out;
  for (std::size_t i = 0; i < block.size(); ++i) {
    const std::string entry_path = path + "/" + std::to_string(i);
    if (is_repeat_group(block[i])) {
      report(list.diagnostics, list.file, value_of(block[i], "repeat"), entry_path + "/repeat",
             "repeat groups do not nest: write the inner block's layers out in the outer block");
      continue;
    }
    out.push_back({read_layer(MappingReader(block[i], list.file, entry_path, list.diagnostics)), block[i], entry_path});
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
  for (long long copy = 0; copy < count; ++copy)
    for (std::size_t t = 0; t < block.size(); ++t) {
      model::Layer layer = block[t].layer;
      layer.name = name_in_copy(layer.name, first_index + copy);
      if (!layer.name.empty() && !list.names.insert(layer.name).second && problem[t].empty())
        problem[t] = "duplicate layer name '" + layer.name + "' (copy " + kIndexPlaceholder + " = " +
                     std::to_string(first_index + copy) + " of the repeat group)";
      list.layers.push_back(std::move(layer));
    }
  for (std::size_t t = 0; t < block.size(); ++t)
    if (!problem[t].empty())
      list.report_name(block[t].entry, block[t].path, problem[t]);
}

void read_repeat_group(const YAML::Node& entry, const std::string& path, LayerList& list)
{
  MappingReader group(entry, list.file, path, list.diagnostics);
  const auto count = group.integer("repeat", 1, kMaxRepeat, Presence::Required);
  const long long first_index = group.integer("first_index", 0, kMaxFirstIndex, Presence::Optional).value_or(0);
  const auto block_node = group.child("layers", Presence::Required);
  group.finish();
  if (!block_node || !expect_sequence(*block_node, list.file, group.path_of("layers"), list.diagnostics))
    return;
  const std::vector<BlockLayer> block = read_block(*block_node, group.path_of("layers"), list);
  if (!count)
    return;
  long long block_items = 0;
  for (const auto& layer : block)
    block_items += 1 + static_cast<long long>(layer.layer.kernels.size());
  const long long expanded = items_in(list.layers) + *count * block_items;
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
  LayerList list{file, diagnostics, {}, {}};
  for (std::size_t i = 0; i < list_node.size(); ++i) {
    const std::string entry_path = path + "/" + std::to_string(i);
    if (is_repeat_group(list_node[i]))
      read_repeat_group(list_node[i], entry_path, list);
    else
      read_plain_layer(list_node[i], entry_path, list);
  }
  return std::move(list.layers);
}

} // namespace gpuscale::config
