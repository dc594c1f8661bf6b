#include "sim/config/PlatformReader.hpp"

#include "sim/config/MappingReader.hpp"
#include "sim/config/YamlFile.hpp"

#include "sim/model/SoftwareDate.hpp"

#include <filesystem>
#include <map>
#include <regex>
#include <set>

namespace gpuscale::config {
namespace {

using units::Dimension;
namespace fs = std::filesystem;

/// Most GPUs a cluster may have (as many as a scenario may ask for).
constexpr long long kMaxPlatformGpus = 1'000'000;

std::vector<std::string>& user_catalog_paths()
{
  static std::vector<std::string> paths;
  return paths;
}

template <typename Map>
std::string names_of(const Map& map)
{
  std::string list;
  for (const auto& [name, _] : map)
    list += (list.empty() ? "" : ", ") + name;
  return list.empty() ? "none" : list;
}

/// "YYYY-MM" as a decimal year at the first of the month (the scale of model::SoftwareDate); nullopt
/// for any other text. Only a month: availability dates are not known to the day.
std::optional<double> available_since_year(const std::string& text)
{
  static const std::regex month(R"((\d{4})-(\d{2}))");
  std::smatch match;
  if (!std::regex_match(text, match, month))
    return std::nullopt;
  const int year = std::stoi(match[1].str());
  const int month_number = std::stoi(match[2].str());
  if (year < 1990 || year > 2100 || month_number < 1 || month_number > 12)
    return std::nullopt;
  return model::software_date_of(year, static_cast<unsigned>(month_number), 1).year;
}

/// Reads one platform file and, recursively, nothing else: imports are only allowed in the file
/// given on the command line, and imported files may only define catalog entries.
class PlatformFileReader {
public:
  PlatformFileReader(model::Platform& platform, Diagnostics& diagnostics)
      : platform_(platform), diagnostics_(diagnostics)
  {
  }

  void read_cluster_file(const std::string& path)
  {
    platform_.source_files.push_back(path);
    auto root = load_yaml_file(path, diagnostics_);
    if (!root)
      return;
    MappingReader top(*root, path, "", diagnostics_);
    read_user_catalogs();
    if (auto imports = top.string_list("imports", Presence::Optional))
      for (std::size_t i = 0; i < imports->size(); ++i)
        read_catalog_file((fs::path(path).parent_path() / (*imports)[i]).lexically_normal().string(), top, i);
    read_catalog_sections(top);
    if (auto cluster = top.child("cluster", Presence::Required))
      read_cluster(MappingReader(*cluster, path, "/cluster", diagnostics_));
    top.finish();
    check_references();
    model::derive_generation_available_years(platform_.gpu_types);
  }

  /// A catalog file on its own: its entries are checked, references between catalog files are not.
  void read_catalog_only(const std::string& path)
  {
    auto root = load_yaml_file(path, diagnostics_);
    if (!root)
      return;
    MappingReader top(*root, path, "", diagnostics_);
    read_catalog_sections(top);
    top.finish();
    model::derive_generation_available_years(platform_.gpu_types);
  }

private:
  /// The user's catalogs come first: entries read later under the same name are skipped, not duplicates.
  void read_user_catalogs()
  {
    from_user_ = true;
    for (const auto& path : user_catalog_paths()) {
      if (std::error_code error; !fs::exists(path, error)) {
        diagnostics_.add({path, 0, 0, "", "catalog file '" + path + "' (--catalog) does not exist"});
        continue;
      }
      platform_.source_files.push_back(path); // an input like any catalog: outputs and sweep hashes see it
      if (auto root = load_yaml_file(path, diagnostics_)) {
        MappingReader top(*root, path, "", diagnostics_);
        read_catalog_sections(top);
        top.finish();
      }
    }
    from_user_ = false;
  }

  struct Reference {
    std::string file;
    YAML::Node node;
    std::string path;
    std::string name;
  };

  void read_catalog_file(const std::string& path, MappingReader& importer, std::size_t index)
  {
    if (const auto problem = referenced_file_problem(path)) {
      report(diagnostics_, importer.file(), (*importer.child("imports", Presence::Optional))[index],
             importer.path_of("imports") + "/" + std::to_string(index), "imported file '" + path + "' " + *problem);
      return;
    }
    platform_.source_files.push_back(path);
    auto root = load_yaml_file(path, diagnostics_);
    if (!root)
      return;
    MappingReader top(*root, path, "", diagnostics_);
    read_catalog_sections(top);
    top.finish();
  }

  void read_catalog_sections(MappingReader& top)
  {
    if (auto gpus = top.child("accelerators", Presence::Optional);
        gpus && expect_sequence(*gpus, top.file(), "/accelerators", diagnostics_))
      for (std::size_t i = 0; i < gpus->size(); ++i)
        read_gpu(MappingReader((*gpus)[i], top.file(), "/accelerators/" + std::to_string(i), diagnostics_));
    if (auto nodes = top.child("node_types", Presence::Optional);
        nodes && expect_sequence(*nodes, top.file(), "/node_types", diagnostics_))
      for (std::size_t i = 0; i < nodes->size(); ++i)
        read_node_type(MappingReader((*nodes)[i], top.file(), "/node_types/" + std::to_string(i), diagnostics_));
  }

  void read_gpu(MappingReader gpu)
  {
    model::GpuType type;
    auto name = gpu.identifier("name", Presence::Required);
    type.display_name = gpu.text("display_name", Presence::Optional).value_or("");
    type.vendor = gpu.text("vendor", Presence::Required).value_or("");
    if (gpu.has("vendor") && !type.vendor.empty() &&
        !(type.vendor == "nvidia" || type.vendor == "amd" || type.vendor == "intel" || type.vendor == "google"))
      gpu.error("vendor", "unknown vendor '" + type.vendor + "' (known: nvidia, amd, intel, google)");
    type.generation = gpu.text("generation", Presence::Optional).value_or("");
    type.aliases = gpu.string_list("aliases", Presence::Optional).value_or(std::vector<std::string>{});
    if (auto peaks = gpu.child("peak", Presence::Required)) {
      MappingReader peak(*peaks, gpu.file(), gpu.path_of("peak"), diagnostics_);
      for (model::Precision p : model::all_precisions())
        if (auto value = peak.positive_quantity(model::to_string(p), Dimension::FlopPerSecond, Presence::Optional))
          type.peak_flop_per_s[p] = *value;
      bool any_given = false; // a rate given with a bad unit is reported by itself, not as missing too
      for (model::Precision p : model::all_precisions())
        any_given = any_given || peak.has(model::to_string(p));
      if (peak.valid() && !any_given)
        report(diagnostics_, gpu.file(), *peaks, gpu.path_of("peak"),
               "expected at least one peak rate (" + model::known_precisions() + ")");
      peak.finish();
    }
    type.compute_units =
        static_cast<int>(gpu.integer("compute_units", 1, 100000, Presence::Optional).value_or(0));
    type.memory_bytes = gpu.positive_quantity("memory", Dimension::Bytes, Presence::Required).value_or(0);
    type.memory_type = gpu.text("memory_type", Presence::Optional).value_or("");
    type.memory_bw_Bps =
        gpu.positive_quantity("memory_bandwidth", Dimension::BytesPerSecond, Presence::Required).value_or(0);
    type.intra_node_bw_Bps =
        gpu.positive_quantity("intra_node_bandwidth", Dimension::BytesPerSecond, Presence::Required).value_or(0);
    type.tdp_w = gpu.positive_quantity("tdp", Dimension::Watts, Presence::Required).value_or(0);
    type.price_usd_per_hour = gpu.positive_quantity("price_per_hour", Dimension::UsdPerHour, Presence::Optional);
    if (auto since = gpu.text("available_since", Presence::Optional)) {
      if (auto year = available_since_year(*since))
        type.available_since_year = *year;
      else
        gpu.error("available_since", "expected a month 'YYYY-MM' (years 1990-2100), got '" + *since + "'");
    }
    gpu.finish();
    if (!name)
      return;
    type.name = *name;
    if (!from_user_ && user_gpus_.contains(*name))
      return; // replaced by the user's catalog
    if (from_user_)
      user_gpus_.insert(*name);
    if (auto [it, inserted] = gpu_origin_.try_emplace(*name, gpu.file()); !inserted) {
      gpu.error("name", "duplicate accelerator '" + *name + "' (first defined in " + it->second + ")");
      return;
    }
    platform_.gpu_types.emplace(*name, std::move(type));
  }

  void read_node_type(MappingReader node)
  {
    model::NodeType type;
    auto name = node.identifier("name", Presence::Required);
    if (auto gpu = node.identifier("accelerator", Presence::Required)) {
      type.gpu_type = *gpu;
      gpu_references_.push_back({node.file(), *node.child("accelerator", Presence::Required),
                                 node.path_of("accelerator"), *gpu});
    }
    type.gpus_per_node = static_cast<int>(node.integer("accelerators_per_node", 1, 1024, Presence::Required).value_or(0));
    type.hosts = static_cast<int>(node.integer("hosts", 1, 1024, Presence::Optional).value_or(1));
    if (type.gpus_per_node > 0 && type.gpus_per_node % type.hosts != 0)
      node.error("hosts", std::to_string(type.hosts) + " hosts do not share " + std::to_string(type.gpus_per_node) +
                              " accelerators_per_node evenly");
    if (auto intra = node.child("intra_node", Presence::Required)) {
      MappingReader reader(*intra, node.file(), node.path_of("intra_node"), diagnostics_);
      if (auto fabric = reader.text("fabric", Presence::Required)) {
        if (*fabric == "nvswitch")
          type.fabric = model::IntraNodeFabric::NvSwitch;
        else if (*fabric == "nvlink_mesh")
          type.fabric = model::IntraNodeFabric::NvlinkMesh;
        else if (*fabric == "pcie")
          type.fabric = model::IntraNodeFabric::Pcie;
        else
          reader.error("fabric", "unknown intra-node fabric '" + *fabric + "' (known: nvswitch, nvlink_mesh, pcie)");
      }
      type.intra_bw_Bps = reader.positive_quantity("bandwidth", Dimension::BytesPerSecond, Presence::Required).value_or(0);
      type.intra_latency_s = reader.quantity("latency", Dimension::Seconds, Presence::Required).value_or(0);
      type.in_switch_reduction = reader.boolean("in_switch_reduction", Presence::Optional).value_or(false);
      if (type.in_switch_reduction && type.fabric != model::IntraNodeFabric::NvSwitch)
        reader.error("in_switch_reduction", "only an nvswitch fabric can reduce in the switch");
      reader.finish();
    }
    if (auto pcie = node.child("pcie", Presence::Required)) {
      MappingReader reader(*pcie, node.file(), node.path_of("pcie"), diagnostics_);
      type.pcie_bw_Bps = reader.positive_quantity("bandwidth", Dimension::BytesPerSecond, Presence::Required).value_or(0);
      type.pcie_latency_s = reader.quantity("latency", Dimension::Seconds, Presence::Required).value_or(0);
      reader.finish();
    }
    if (auto nics = node.child("nics", Presence::Required)) {
      MappingReader reader(*nics, node.file(), node.path_of("nics"), diagnostics_);
      type.nic_count = static_cast<int>(reader.integer("count", 1, 1024, Presence::Required).value_or(0));
      type.nic_bw_Bps = reader.positive_quantity("bandwidth", Dimension::BytesPerSecond, Presence::Required).value_or(0);
      type.nic_latency_s = reader.quantity("latency", Dimension::Seconds, Presence::Required).value_or(0);
      reader.finish();
    }
    if (auto host = node.child("host", Presence::Required)) {
      MappingReader reader(*host, node.file(), node.path_of("host"), diagnostics_);
      type.host_cpu = reader.text("cpu", Presence::Required).value_or("");
      type.sockets = static_cast<int>(reader.integer("sockets", 1, 1024, Presence::Required).value_or(0));
      type.cores_per_socket = static_cast<int>(reader.integer("cores_per_socket", 1, 1024, Presence::Required).value_or(0));
      reader.finish();
    }
    node.finish();
    if (!name)
      return;
    type.name = *name;
    if (!from_user_ && user_nodes_.contains(*name))
      return; // replaced by the user's catalog
    if (from_user_)
      user_nodes_.insert(*name);
    if (auto [it, inserted] = node_origin_.try_emplace(*name, node.file()); !inserted) {
      node.error("name", "duplicate node type '" + *name + "' (first defined in " + it->second + ")");
      return;
    }
    platform_.node_types.emplace(*name, std::move(type));
  }

  void read_cluster(MappingReader cluster)
  {
    platform_.name = cluster.identifier("name", Presence::Required).value_or("");
    platform_.description = cluster.text("description", Presence::Optional).value_or("");
    if (auto groups = cluster.child("node_groups", Presence::Required);
        groups && expect_sequence(*groups, cluster.file(), cluster.path_of("node_groups"), diagnostics_)) {
      for (std::size_t i = 0; i < groups->size(); ++i) {
        const std::string path = cluster.path_of("node_groups") + "/" + std::to_string(i);
        MappingReader group((*groups)[i], cluster.file(), path, diagnostics_);
        model::NodeGroup node_group;
        if (auto type = group.identifier("node_type", Presence::Required)) {
          node_group.node_type = *type;
          node_references_.push_back({cluster.file(), *group.child("node_type", Presence::Required),
                                      group.path_of("node_type"), *type});
        }
        node_group.count = static_cast<int>(group.integer("count", 1, 100000, Presence::Required).value_or(0));
        if (group.has("count"))
          group_counts_.push_back({cluster.file(), *group.child("count", Presence::Required), group.path_of("count"), ""});
        group.finish();
        platform_.node_groups.push_back(node_group);
      }
    }
    if (auto fabric = cluster.child("fabric", Presence::Required))
      read_fabric(MappingReader(*fabric, cluster.file(), cluster.path_of("fabric"), diagnostics_));
    cluster.finish();
  }

  void read_fabric(MappingReader fabric)
  {
    auto& out = platform_.fabric;
    if (auto topology = fabric.text("topology", Presence::Required)) {
      if (*topology == "single_switch")
        out.topology = model::FabricTopology::SingleSwitch;
      else if (*topology == "fat_tree")
        out.topology = model::FabricTopology::FatTree;
      else if (*topology == "rail_optimized")
        out.topology = model::FabricTopology::RailOptimized;
      else
        fabric.error("topology",
                     "unknown fabric topology '" + *topology + "' (known: single_switch, fat_tree, rail_optimized)");
    }
    out.switch_latency_s = fabric.quantity("switch_latency", Dimension::Seconds, Presence::Required).value_or(0);
    const bool fat_tree = out.topology == model::FabricTopology::FatTree;
    const bool rail = out.topology == model::FabricTopology::RailOptimized;
    const Presence fat_tree_key = fat_tree ? Presence::Required : Presence::Optional;
    out.nodes_per_leaf = static_cast<int>(fabric.integer("nodes_per_leaf", 1, 100000, fat_tree_key).value_or(0));
    out.oversubscription = fabric.number("oversubscription", 1.0, 1000.0, Presence::Optional).value_or(1.0);
    out.spine_bw_Bps = fabric.positive_quantity("spine_bandwidth", Dimension::BytesPerSecond, Presence::Optional);
    out.in_network_reduction = fabric.boolean("in_network_reduction", Presence::Optional).value_or(false);
    if (!fat_tree && fabric.has("nodes_per_leaf"))
      fabric.error("nodes_per_leaf", "only meaningful for topology fat_tree");
    if (!fat_tree && fabric.has("oversubscription"))
      fabric.error("oversubscription", "only meaningful for topology fat_tree");
    if (!rail && fabric.has("spine_bandwidth"))
      fabric.error("spine_bandwidth", "only meaningful for topology rail_optimized");
    fabric.finish();
  }

  void check_references()
  {
    for (const auto& ref : gpu_references_)
      if (!platform_.gpu_types.contains(ref.name))
        report(diagnostics_, ref.file, ref.node, ref.path,
               "unknown accelerator '" + ref.name + "' (known: " + names_of(platform_.gpu_types) + ")");
    bool types_known = true;
    for (const auto& ref : node_references_)
      if (!platform_.node_types.contains(ref.name)) {
        types_known = false;
        report(diagnostics_, ref.file, ref.node, ref.path,
               "unknown node type '" + ref.name + "' (known: " + names_of(platform_.node_types) + ")");
      }
    if (types_known && group_counts_.size() == platform_.node_groups.size())
      check_gpu_total();
  }

  /// A cluster larger than any simulation could hold is refused at the group that takes it past the limit
  /// (sums in 64 bits: per-group products fit, their sum over many groups would overflow an int).
  void check_gpu_total()
  {
    long long total = 0;
    std::size_t first_over = platform_.node_groups.size();
    for (std::size_t g = 0; g < platform_.node_groups.size(); ++g) {
      const auto& group = platform_.node_groups[g];
      const auto type = platform_.node_types.find(group.node_type);
      if (type == platform_.node_types.end())
        return; // already reported, or the group has no node type
      total += static_cast<long long>(group.count) * type->second.gpus_per_node;
      if (total > kMaxPlatformGpus && first_over == platform_.node_groups.size())
        first_over = g;
    }
    if (first_over < platform_.node_groups.size()) {
      const auto& at = group_counts_[first_over];
      report(diagnostics_, at.file, at.node, at.path,
             "the cluster has " + std::to_string(total) + " GPUs (count x accelerators_per_node over node_groups); at most " +
                 std::to_string(kMaxPlatformGpus) + " are supported");
    }
  }

  model::Platform& platform_;
  Diagnostics& diagnostics_;
  std::map<std::string, std::string> gpu_origin_;
  std::map<std::string, std::string> node_origin_;
  std::vector<Reference> gpu_references_;
  std::vector<Reference> node_references_;
  std::vector<Reference> group_counts_; ///< the count of each node group, when given
  bool from_user_ = false;              ///< reading the user's catalogs
  std::set<std::string> user_gpus_;     ///< accelerators the user's catalogs define
  std::set<std::string> user_nodes_;    ///< node types the user's catalogs define
};

} // namespace

void set_user_catalogs(std::vector<std::string> paths)
{
  user_catalog_paths() = std::move(paths);
}

model::Platform read_platform(const std::string& path)
{
  model::Platform platform;
  Diagnostics diagnostics;
  PlatformFileReader(platform, diagnostics).read_cluster_file(path);
  diagnostics.throw_if_any();
  return platform;
}

model::Platform read_platform_catalog(const std::string& path)
{
  model::Platform catalog;
  Diagnostics diagnostics;
  PlatformFileReader(catalog, diagnostics).read_catalog_only(path);
  diagnostics.throw_if_any();
  return catalog;
}

} // namespace gpuscale::config
