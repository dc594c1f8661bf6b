#include "sim/config/SweepReader.hpp"

#include "sim/config/CalibrationReader.hpp"

#include "sim/config/MappingReader.hpp"
#include "sim/config/ScenarioMappingReader.hpp"
#include "sim/config/YamlFile.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace gpuscale::config {
namespace {

/// Combinations that do not fit are listed one by one up to this many, then counted.
constexpr std::size_t kMaxReportedCombinations = 20;
/// Distinct errors of the points themselves (a bad list item, an error of a named file) reported before
/// the expansion gives up: a bad item repeats in every point that takes it.
constexpr std::size_t kMaxReportedPointErrors = 50;

/// The keys read_scenario needs, which the sweep may give instead of the base scenario.
constexpr const char* kRequiredKeys[] = {"platform", "workload", "global_batch_size", "micro_batch_size", "gpus"};
/// Axes with a fixed place in the point numbering (SweepSpec.hpp), slowest-varying first; any other
/// swept key varies slower than all of these but faster than platform and workload, in the order
/// the sweep lists it.
constexpr const char* kLeadingAxes[] = {"platform", "workload"};
constexpr const char* kTrailingAxes[] = {"zero_stage", "collective", "global_batch_size", "micro_batch_size", "gpus"};

/// One value of a swept key, as written and where.
struct AxisItem {
  YAML::Node node;
  std::string path;      ///< /sweep/<key>/<i>
  std::string canonical; ///< the value as YAML text, to find duplicates
  std::optional<long long> integer; ///< the value as an integer, where it is one ("8", "08")
};

struct Axis {
  std::string key;
  YAML::Node key_node; ///< the key in the sweep: mapping (located)
  std::vector<AxisItem> items;
};

using Choice = std::vector<std::size_t>; ///< an item index per axis

std::string canonical_text(const YAML::Node& node)
{
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

std::optional<long long> integer_of(const YAML::Node& node)
{
  long long value = 0;
  if (node.IsScalar() && YAML::convert<long long>::decode(node, value))
    return value;
  return std::nullopt;
}

/// Two items mean the same value: the same text, or scalars that are the same integer ("8", "08").
bool same_value(const AxisItem& a, const AxisItem& b)
{
  return a.canonical == b.canonical || (a.integer && b.integer && *a.integer == *b.integer);
}

/// The axis of `key`; a duplicate item is left out and added to `duplicates`.
std::optional<Axis> read_axis(const YAML::Node& key, const YAML::Node& list, const std::string& file,
                              std::vector<Diagnostic>& duplicates, Diagnostics& diagnostics)
{
  Axis axis{key.Scalar(), key, {}};
  const std::string list_path = "/sweep/" + axis.key;
  if (!expect_sequence(list, file, list_path, diagnostics))
    return std::nullopt;
  for (std::size_t i = 0; i < list.size(); ++i) {
    AxisItem item{list[i], list_path + "/" + std::to_string(i), canonical_text(list[i]), integer_of(list[i])};
    const auto earlier = std::find_if(axis.items.begin(), axis.items.end(),
                                      [&](const AxisItem& e) { return same_value(e, item); });
    if (earlier != axis.items.end()) // reported; the other items are still checked, point by point
      duplicates.push_back({file, item.node.Mark().line + 1, item.node.Mark().column + 1, item.path,
                            "duplicate value '" + item.canonical + "' (already at " + earlier->path + ")"});
    else
      axis.items.push_back(std::move(item));
  }
  return axis;
}

/// The sweep: mapping's axes in numbering order, and skip_invalid.
std::vector<Axis> read_axes(const YAML::Node& sweep, const std::string& file, bool& skip_invalid,
                            std::set<std::string>& given, std::vector<Diagnostic>& duplicates,
                            Diagnostics& diagnostics)
{
  const std::set<std::string> known = scenario_keys();
  std::vector<Axis> written;
  for (auto it = sweep.begin(); it != sweep.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
    if (key == "skip_invalid") {
      MappingReader reader(sweep, file, "/sweep", diagnostics);
      skip_invalid = reader.boolean("skip_invalid", Presence::Optional).value_or(false);
      continue;
    }
    if (!known.contains(key) || key == "name") {
      std::string list = "skip_invalid and any scenario key but name:";
      for (const auto& k : known)
        list += k == "name" ? "" : (list.back() == ':' ? " " : ", ") + k;
      report(diagnostics, file, it->first, "/sweep/" + key,
             key == "name" ? "the scenario name cannot be swept"
                           : "unknown key '" + key + "' (known keys: " + list + ")");
      continue;
    }
    given.insert(key);
    if (auto axis = read_axis(it->first, it->second, file, duplicates, diagnostics))
      written.push_back(std::move(*axis));
  }
  auto rank = [](const std::string& key) {
    for (std::size_t i = 0; i < std::size(kLeadingAxes); ++i)
      if (key == kLeadingAxes[i])
        return static_cast<int>(i);
    for (std::size_t i = 0; i < std::size(kTrailingAxes); ++i)
      if (key == kTrailingAxes[i])
        return 1000 + static_cast<int>(i);
    return 100; // in the order written (stable sort)
  };
  // Sorted by index and copied, not sorted in place: assigning a YAML::Node rebinds the node it refers
  // to, inside the document.
  std::vector<std::size_t> order(written.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rank(written[a].key) < rank(written[b].key); });
  std::vector<Axis> axes;
  for (std::size_t i : order)
    axes.push_back(written[i]);
  return axes;
}

/// `text` with every line indented by two spaces.
std::string indented(const std::string& text)
{
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::size_t stop = end == std::string::npos ? text.size() : end;
    out += "  " + text.substr(start, stop - start) + "\n";
    start = stop + 1;
  }
  return out;
}

bool is_swept(const std::vector<Axis>& axes, const std::string& key)
{
  return std::any_of(axes.begin(), axes.end(), [&](const Axis& a) { return a.key == key; });
}

/// Expands the product point by point. Every point is read and resolved by read_scenario_point, the
/// reader `gpuscale run` uses, from the base scenario with the point's values in place: a point is
/// exactly the scenario run alone. The files the points name are read once (ScenarioInputCache).
class SweepExpander {
public:
  SweepExpander(model::SweepSpec& spec, std::vector<Axis> axes, const YAML::Node& scenario, Diagnostics& diagnostics)
      : spec_(spec), axes_(std::move(axes)), scenario_(scenario), diagnostics_(diagnostics),
        unswept_text_(unswept_text()), point_(YAML::NodeType::Map)
  {
    for (auto it = scenario_.begin(); it != scenario_.end(); ++it)
      if (!(it->first.IsScalar() && is_swept(axes_, it->first.Scalar())))
        point_.force_insert(it->first, it->second);
  }

  void expand()
  {
    for (std::int64_t index = 0; index < spec_.points_total; ++index) {
      expand_point(index);
      if (reported_.size() >= kMaxReportedPointErrors) {
        diagnostics_.add({spec_.path, 0, 0, "/sweep", "... stopped after " + std::to_string(reported_.size()) +
                                                          " errors in the sweep's points"});
        return;
      }
    }
    report_invalid();
  }

private:
  Choice choice_of(std::int64_t index) const
  {
    Choice choice(axes_.size(), 0);
    for (std::size_t a = axes_.size(); a-- > 0;) {
      const auto size = static_cast<std::int64_t>(axes_[a].items.size());
      choice[a] = static_cast<std::size_t>(index % size);
      index /= size;
    }
    return choice;
  }

  /// The base scenario mapping with the chosen values in place of (or in addition to) its own. Kept
  /// keys and values are the base document's nodes, chosen ones the sweep's, so every location
  /// survives. One node serves every point, its swept values replaced: a new yaml-cpp node per point
  /// would merge the document's memory into each (quadratic in the points).
  const YAML::Node& point_node(const Choice& choice)
  {
    for (std::size_t a = 0; a < axes_.size(); ++a) {
      point_.remove(axes_[a].key);
      point_.force_insert(axes_[a].key_node, axes_[a].items[choice[a]].node);
    }
    return point_;
  }

  /// The base scenario's keys that no axis sweeps, as YAML lines under "scenario:". Written once:
  /// building a yaml-cpp node per point would merge every point's nodes into the document's memory.
  std::string unswept_text() const
  {
    YAML::Node node(YAML::NodeType::Map);
    for (auto it = scenario_.begin(); it != scenario_.end(); ++it)
      if (!(it->first.IsScalar() && is_swept(axes_, it->first.Scalar())))
        node.force_insert(it->first, it->second);
    if (node.size() == 0)
      return "";
    YAML::Emitter out;
    out << node;
    return indented(out.c_str());
  }

  /// The equivalent single-scenario file of a point: the unswept keys, then the point's values.
  std::string point_text(const Choice& choice, std::int64_t index) const
  {
    std::string text = "# point " + std::to_string(index) + " of sweep " + spec_.sweep_id + " (" + spec_.path +
                       "); paths are relative to that file\nscenario:\n" + unswept_text_;
    for (std::size_t a = 0; a < axes_.size(); ++a) {
      YAML::Emitter pair;
      pair << YAML::BeginMap << YAML::Key << axes_[a].key << YAML::Value << axes_[a].items[choice[a]].node
           << YAML::EndMap;
      text += indented(pair.c_str());
    }
    return text;
  }

  std::string describe(const Choice& choice) const
  {
    std::string text;
    for (std::size_t a = 0; a < axes_.size(); ++a)
      text += (text.empty() ? "" : ", ") + axes_[a].key + "=" + axes_[a].items[choice[a]].canonical;
    return text;
  }

  /// The axis whose chosen item a diagnostic of the point's scenario is about, if any.
  std::optional<std::size_t> axis_of(const std::string& path) const
  {
    for (std::size_t a = 0; a < axes_.size(); ++a) {
      const std::string prefix = "/scenario/" + axes_[a].key;
      if (path == prefix || path.rfind(prefix + "/", 0) == 0)
        return a;
    }
    return std::nullopt;
  }

  /// A diagnostic of the point's scenario, said of the sweep item it is about (/sweep/gpus/1).
  Diagnostic in_sweep_terms(Diagnostic d, const Choice& choice) const
  {
    if (d.file != spec_.path)
      return d;
    if (auto a = axis_of(d.path)) {
      const std::string prefix = "/scenario/" + axes_[*a].key;
      const YAML::Mark key = axes_[*a].key_node.Mark();
      const bool about_key = d.line == key.line + 1 && d.column == key.column + 1; // e.g. an unknown key
      d.path = about_key ? "/sweep/" + axes_[*a].key : axes_[*a].items[choice[*a]].path + d.path.substr(prefix.size());
    }
    return d;
  }

  /// The swept key most responsible for `conflict`, if any of its keys is swept.
  std::optional<std::size_t> culprit(const model::ScenarioConflict& conflict) const
  {
    for (const auto& key : conflict.keys)
      for (std::size_t a = 0; a < axes_.size(); ++a)
        if (axes_[a].key == key)
          return a;
    return std::nullopt;
  }

  void expand_point(std::int64_t index)
  {
    const Choice choice = choice_of(index);
    Diagnostics local;
    ScenarioReading reading = read_scenario_point(point_node(choice), spec_.path, local, inputs_);
    if (local.empty()) {
      add_point(index, choice, std::move(reading));
      return;
    }
    // A point refused only because its swept values do not fit together is a combination to skip
    // or report; anything else (a bad value, a bad file, a base scenario that cannot run) is an error.
    const auto& conflicts = reading.resolution.conflicts;
    const bool only_conflicts = local.size() == conflicts.size();
    const bool all_swept = std::all_of(conflicts.begin(), conflicts.end(),
                                       [&](const auto& c) { return culprit(c).has_value(); });
    if (only_conflicts && all_swept) {
      invalid_.push_back({index, choice, conflicts.front()});
      return;
    }
    for (const auto& d : local.all())
      add_unique(in_sweep_terms(d, choice));
  }

  void add_point(std::int64_t index, const Choice& choice, ScenarioReading reading)
  {
    model::SweepPoint point;
    point.index = index;
    point.scenario = std::move(reading.scenario);
    point.platform_file = std::move(reading.platform);
    point.workload_file = std::move(reading.workload);
    point.convergence = shared_convergence(reading.convergence_table.get(), std::move(reading.resolution.convergence));
    point.host_input = std::move(reading.resolution.host_input);
    point.calibration = point.scenario.efficiency_given ? nullptr : &default_calibration(); // as `run` resolves it
    point.scenario_text = point_text(choice, index);
    spec_.points.push_back(std::move(point));
  }

  /// One copy of each calibrated convergence table (a table as read, with one per-run overhead),
  /// shared by the points that use it.
  std::shared_ptr<const model::ConvergenceTable> shared_convergence(const model::ConvergenceTable* read,
                                                                    std::optional<model::ConvergenceTable> table)
  {
    if (!table)
      return nullptr;
    auto& shared = convergence_[{read, table->run_start_overhead_s}];
    if (!shared)
      shared = std::make_shared<const model::ConvergenceTable>(std::move(*table));
    return shared;
  }

  void add_unique(const Diagnostic& d)
  {
    if (reported_.insert(d.format()).second)
      diagnostics_.add(d);
  }

  static model::SkipReason reason_of(const model::ScenarioConflict& conflict)
  {
    switch (conflict.kind) {
      case model::ScenarioConflict::Kind::GpuCount: return model::SkipReason::GpuCount;
      case model::ScenarioConflict::Kind::BatchSize: return model::SkipReason::BatchSize;
      case model::ScenarioConflict::Kind::Layout: return model::SkipReason::Layout;
    }
    return model::SkipReason::Layout;
  }

  void report_invalid()
  {
    if (spec_.skip_invalid) {
      for (const auto& combination : invalid_)
        spec_.skipped.push_back({combination.index, reason_of(combination.conflict), combination.conflict.message});
      return;
    }
    for (std::size_t i = 0; i < invalid_.size() && i < kMaxReportedCombinations; ++i) {
      const auto& combination = invalid_[i];
      const auto& item = axes_[*culprit(combination.conflict)].items[combination.choice[*culprit(combination.conflict)]];
      report(diagnostics_, spec_.path, item.node, item.path,
             "point " + std::to_string(combination.index) + " (" + describe(combination.choice) +
                 "): " + combination.conflict.message + "; add 'skip_invalid: true' under sweep: to skip such points");
    }
    if (invalid_.size() > kMaxReportedCombinations)
      diagnostics_.add({spec_.path, 0, 0, "/sweep",
                        "... and " + std::to_string(invalid_.size() - kMaxReportedCombinations) +
                            " more points that do not fit (" + std::to_string(invalid_.size()) + " in all)"});
  }

  struct InvalidCombination {
    std::int64_t index;
    Choice choice;
    model::ScenarioConflict conflict;
  };

  model::SweepSpec& spec_;
  std::vector<Axis> axes_;
  const YAML::Node& scenario_;
  Diagnostics& diagnostics_;
  std::string unswept_text_;
  YAML::Node point_; ///< see point_node
  ScenarioInputCache inputs_;
  std::map<std::pair<const model::ConvergenceTable*, double>, std::shared_ptr<const model::ConvergenceTable>>
      convergence_;
  std::vector<InvalidCombination> invalid_;
  std::set<std::string> reported_;
};

} // namespace

model::SweepSpec read_sweep(const std::string& path)
{
  Diagnostics diagnostics;
  model::SweepSpec spec;
  spec.path = path;
  auto text = read_text_file(path, diagnostics);
  if (!text)
    diagnostics.throw_if_any();
  spec.text = *text;
  spec.sweep_id = model::sweep_id_of(spec.text);
  auto root = load_yaml_text(spec.text, path, diagnostics);
  if (!root)
    diagnostics.throw_if_any();
  MappingReader top(*root, path, "", diagnostics);
  auto scenario_node = top.child("scenario", Presence::Required);
  auto sweep_node = top.child("sweep", Presence::Required);
  top.finish();
  if (!scenario_node || !sweep_node)
    diagnostics.throw_if_any();

  std::vector<Axis> axes;
  std::set<std::string> given;        // swept keys, their lists good or bad
  std::vector<Diagnostic> duplicates; // reported after the points' own errors
  if (MappingReader sweep(*sweep_node, path, "/sweep", diagnostics); sweep.valid())
    axes = read_axes(*sweep_node, path, spec.skip_invalid, given, duplicates, diagnostics);

  MappingReader scenario(*scenario_node, path, "/scenario", diagnostics);
  if (scenario.valid()) {
    spec.name = scenario.has("name") && scenario.node()["name"].IsScalar() ? scenario.node()["name"].Scalar() : "";
    for (const char* key : kRequiredKeys)
      if (!given.contains(key) && !scenario.has(key))
        report(diagnostics, path, *scenario_node, scenario.path_of(key),
               std::string("missing required key '") + key + "' (give it here, or a list of values under /sweep/" +
                   key + ")");
  }
  long double total = 1;
  for (const auto& axis : axes) {
    total *= static_cast<long double>(axis.items.size());
    if (axis.items.size() > 1)
      spec.axes.push_back(axis.key);
  }
  if (total > kMaxSweepPoints)
    report(diagnostics, path, *sweep_node, "/sweep",
           "the sweep expands to " + std::to_string(std::llround(std::min<long double>(total, 1e18L))) +
               (total > 1e18L ? " or more" : "") + " points; at most " + std::to_string(kMaxSweepPoints) +
               " are allowed"); // (a product of long lists can exceed any integer type)
  diagnostics.throw_if_any();

  spec.points_total = static_cast<std::int64_t>(total);
  SweepExpander(spec, std::move(axes), *scenario_node, diagnostics).expand();
  for (auto& d : duplicates)
    diagnostics.add(std::move(d));
  if (diagnostics.empty() && spec.points.empty())
    report(diagnostics, path, *sweep_node, "/sweep",
           "every one of the " + std::to_string(spec.points_total) + " points was skipped (" +
               (spec.skipped.empty() ? std::string("none fits") : spec.skipped.front().detail + ", ...") + ")");
  diagnostics.throw_if_any();
  return spec;
}

} // namespace gpuscale::config
