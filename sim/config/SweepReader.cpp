#include "sim/config/SweepReader.hpp"

#include "sim/config/MappingReader.hpp"
#include "sim/config/ScenarioMappingReader.hpp"
#include "sim/config/YamlFile.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <optional>
#include <set>

namespace gpuscale::config {
namespace {

namespace fs = std::filesystem;

constexpr long long kMaxGpus = 1'000'000;
constexpr long long kMaxBatch = 1'000'000'000;
/// Combinations that do not fit are listed one by one up to this many, then counted.
constexpr std::size_t kMaxReportedCombinations = 20;

enum class ItemKind { Integer, Path, Collective };

struct AxisRule {
  const char* key;
  ItemKind kind;
  long long min_value;
  long long max_value;
  bool required_in_scenario; ///< read_scenario needs it when the sweep does not give it
};

/// Expansion order, slowest-varying first (the index formula in SweepSpec.hpp).
enum AxisIndex { kPlatform, kWorkload, kZeroStage, kCollective, kGlobalBatch, kMicroBatch, kGpus, kAxisCount };
constexpr std::array<AxisRule, kAxisCount> kAxes{{
    {"platform", ItemKind::Path, 0, 0, true},
    {"workload", ItemKind::Path, 0, 0, true},
    {"zero_stage", ItemKind::Integer, 0, 3, false},
    {"collective", ItemKind::Collective, 0, 0, false},
    {"global_batch_size", ItemKind::Integer, 1, kMaxBatch, true},
    {"micro_batch_size", ItemKind::Integer, 1, kMaxBatch, true},
    {"gpus", ItemKind::Integer, 1, kMaxGpus, true},
}};

/// One value of a swept key, as written and where.
struct AxisItem {
  std::string text;
  YAML::Node node;
  std::string path; ///< /sweep/<key>/<i>
  long long integer = 0;
};

/// The values a key takes; an axis absent from sweep: has no items (the base scenario's value is used).
struct Axis {
  bool given = false; ///< the key is under sweep: (even if its list has errors)
  std::vector<AxisItem> items;
  bool swept() const { return !items.empty(); }
  std::size_t size() const { return swept() ? items.size() : 1; }
};

using Choice = std::array<const AxisItem*, kAxisCount>; ///< nullptr: base value

std::string resolve(const std::string& sweep_path, const std::string& relative)
{
  return (fs::path(sweep_path).parent_path() / relative).lexically_normal().string();
}

Axis read_axis(MappingReader& sweep, const AxisRule& rule, Diagnostics& diagnostics)
{
  Axis axis;
  const std::string list_path = sweep.path_of(rule.key);
  auto list = sweep.child(rule.key, Presence::Optional);
  axis.given = list.has_value();
  if (!list || !expect_sequence(*list, sweep.file(), list_path, diagnostics))
    return axis;
  for (std::size_t i = 0; i < list->size(); ++i) {
    AxisItem item{"", (*list)[i], list_path + "/" + std::to_string(i)};
    if (!item.node.IsScalar()) {
      report(diagnostics, sweep.file(), item.node, item.path, "expected a single value, got a list or mapping");
      continue;
    }
    item.text = item.node.Scalar();
    bool ok = true;
    switch (rule.kind) {
      case ItemKind::Integer:
        ok = YAML::convert<long long>::decode(item.node, item.integer) && item.integer >= rule.min_value &&
             item.integer <= rule.max_value;
        if (!ok)
          report(diagnostics, sweep.file(), item.node, item.path,
                 "expected an integer in [" + std::to_string(rule.min_value) + ", " + std::to_string(rule.max_value) +
                     "], got '" + item.text + "'");
        break;
      case ItemKind::Path: {
        const std::string resolved = resolve(sweep.file(), item.text);
        std::error_code error; // a name too long for the file system is "does not exist", not an exception
        ok = !item.text.empty() && fs::is_regular_file(resolved, error);
        if (!ok)
          report(diagnostics, sweep.file(), item.node, item.path,
                 std::string(rule.key) + " file '" + resolved + "' does not exist");
        break;
      }
      case ItemKind::Collective:
        ok = model::parse_collective_algorithm(item.text).has_value();
        if (!ok)
          report(diagnostics, sweep.file(), item.node, item.path,
                 "unknown collective algorithm '" + item.text + "' (known: " + model::known_collective_algorithms() +
                     ")");
        break;
    }
    if (!ok)
      continue;
    for (const auto& earlier : axis.items)
      if (earlier.text == item.text || (rule.kind == ItemKind::Integer && earlier.integer == item.integer)) {
        report(diagnostics, sweep.file(), item.node, item.path,
               "duplicate value '" + item.text + "' (already at " + earlier.path + ")");
        ok = false;
        break;
      }
    if (ok)
      axis.items.push_back(std::move(item));
  }
  return axis;
}

/// The base scenario mapping with the chosen values put in place of (or in addition to) its own.
/// Keys and values that are kept are the base document's nodes, so their locations survive.
YAML::Node point_node(const YAML::Node& base, const Choice& choice)
{
  YAML::Node node(YAML::NodeType::Map);
  for (auto it = base.begin(); it != base.end(); ++it) {
    bool overridden = false;
    for (std::size_t a = 0; a < kAxisCount; ++a)
      overridden = overridden || (choice[a] != nullptr && it->first.IsScalar() && it->first.Scalar() == kAxes[a].key);
    if (!overridden)
      node.force_insert(it->first, it->second);
  }
  for (std::size_t a = 0; a < kAxisCount; ++a)
    if (choice[a] != nullptr)
      node.force_insert(YAML::Node(kAxes[a].key), YAML::Node(choice[a]->text));
  return node;
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

/// The base scenario's keys that no axis sweeps, as YAML lines under "scenario:". Written once: building
/// a yaml-cpp node per point would merge every point's nodes into the document's memory (quadratic).
std::string unswept_text(const YAML::Node& base, const std::array<Axis, kAxisCount>& axes)
{
  YAML::Node node(YAML::NodeType::Map);
  for (auto it = base.begin(); it != base.end(); ++it) {
    bool swept = false;
    for (std::size_t a = 0; a < kAxisCount; ++a)
      swept = swept || (axes[a].swept() && it->first.IsScalar() && it->first.Scalar() == kAxes[a].key);
    if (!swept)
      node.force_insert(it->first, it->second);
  }
  if (node.size() == 0)
    return "";
  YAML::Emitter out;
  out << node;
  return indented(out.c_str());
}

/// The equivalent single-scenario file of a point: the unswept keys, then the point's values.
std::string point_text(const std::string& unswept, const Choice& choice, std::int64_t index,
                       const std::string& sweep_id, const std::string& path)
{
  std::string text = "# point " + std::to_string(index) + " of sweep " + sweep_id + " (" + path +
                     "); paths are relative to that file\nscenario:\n" + unswept;
  for (std::size_t a = 0; a < kAxisCount; ++a)
    if (choice[a] != nullptr) {
      YAML::Emitter pair;
      pair << YAML::BeginMap << YAML::Key << kAxes[a].key << YAML::Value << choice[a]->text << YAML::EndMap;
      text += indented(pair.c_str());
    }
  return text;
}

std::string describe_choice(const Choice& choice)
{
  std::string text;
  for (std::size_t a = 0; a < kAxisCount; ++a)
    if (choice[a] != nullptr)
      text += (text.empty() ? "" : ", ") + std::string(kAxes[a].key) + "=" + choice[a]->text;
  return text;
}

struct CombinationProblem {
  model::SkipReason reason;
  std::string message;
};

/// The combination checks of read_scenario (see ScenarioReader.cpp check_consistency), on the model,
/// for points that share an already-read platform and workload.
std::optional<CombinationProblem> check_combination(const model::Scenario& s, const model::Platform& platform)
{
  if (s.gpus > platform.gpu_count())
    return CombinationProblem{model::SkipReason::GpuCount, "the scenario asks for " + std::to_string(s.gpus) +
                                                               " GPUs but platform '" + platform.name + "' has " +
                                                               std::to_string(platform.gpu_count())};
  const int model_parallel = s.tensor_parallel * s.context_parallel;
  if (s.gpus % model_parallel != 0)
    return CombinationProblem{model::SkipReason::GpuCount,
                              std::to_string(s.gpus) + " GPUs do not divide into groups of tp x cp = " +
                                  std::to_string(s.tensor_parallel) + " x " + std::to_string(s.context_parallel)};
  const long long replicas = s.gpus / model_parallel;
  if (s.global_batch_size % (static_cast<long long>(s.micro_batch_size) * replicas) != 0)
    return CombinationProblem{model::SkipReason::BatchSize,
                              "global batch size " + std::to_string(s.global_batch_size) +
                                  " is not a multiple of micro_batch_size x data-parallel replicas = " +
                                  std::to_string(s.micro_batch_size) + " x " + std::to_string(replicas)};
  return std::nullopt;
}

/// If read_scenario refused a point only because its swept values do not fit together, the problem;
/// nullopt if anything else is wrong (an error of the base scenario or of a file it names).
std::optional<CombinationProblem> combination_problem(const std::vector<Diagnostic>& diagnostics, const Choice& choice)
{
  std::optional<CombinationProblem> problem;
  for (const auto& d : diagnostics) {
    const bool gpus_swept = choice[kGpus] != nullptr || choice[kPlatform] != nullptr;
    const bool batch_swept = gpus_swept || choice[kGlobalBatch] != nullptr || choice[kMicroBatch] != nullptr;
    if (d.path == "/scenario/gpus" && gpus_swept)
      problem = CombinationProblem{model::SkipReason::GpuCount, d.message};
    else if (d.path == "/scenario/global_batch_size" && batch_swept && !problem)
      problem = CombinationProblem{model::SkipReason::BatchSize, d.message};
    else if (d.path != "/scenario/global_batch_size" || !batch_swept)
      return std::nullopt;
  }
  return problem;
}

/// Where to point at when a combination does not fit: the list item most responsible for it.
std::pair<YAML::Node, std::string> culprit(const Choice& choice, model::SkipReason reason, const YAML::Node& scenario)
{
  const std::vector<AxisIndex> order = reason == model::SkipReason::GpuCount
                                          ? std::vector<AxisIndex>{kGpus, kPlatform}
                                          : std::vector<AxisIndex>{kGlobalBatch, kMicroBatch, kGpus};
  for (AxisIndex a : order)
    if (choice[a] != nullptr)
      return {choice[a]->node, choice[a]->path};
  const char* key = reason == model::SkipReason::GpuCount ? "gpus" : "global_batch_size";
  const YAML::Node& base = scenario;
  return {base[key].IsDefined() ? base[key] : scenario, std::string("/scenario/") + key};
}

model::Scenario with_choice(model::Scenario s, const Choice& choice)
{
  if (choice[kZeroStage] != nullptr)
    s.zero_stage = static_cast<int>(choice[kZeroStage]->integer);
  if (choice[kCollective] != nullptr)
    s.collective = *model::parse_collective_algorithm(choice[kCollective]->text);
  if (choice[kGlobalBatch] != nullptr)
    s.global_batch_size = static_cast<int>(choice[kGlobalBatch]->integer);
  if (choice[kMicroBatch] != nullptr)
    s.micro_batch_size = static_cast<int>(choice[kMicroBatch]->integer);
  if (choice[kGpus] != nullptr)
    s.gpus = static_cast<int>(choice[kGpus]->integer);
  return s;
}

/// Expands the product, reading each platform and workload pair once.
class SweepExpander {
public:
  SweepExpander(model::SweepSpec& spec, const std::array<Axis, kAxisCount>& axes, const YAML::Node& scenario,
                Diagnostics& diagnostics)
      : spec_(spec), axes_(axes), scenario_(scenario), diagnostics_(diagnostics),
        unswept_text_(unswept_text(scenario, axes))
  {
  }

  void expand()
  {
    const std::int64_t per_pair = spec_.points_total / static_cast<std::int64_t>(axes_[kPlatform].size() *
                                                                                   axes_[kWorkload].size());
    for (std::size_t p = 0; p < axes_[kPlatform].size(); ++p)
      for (std::size_t w = 0; w < axes_[kWorkload].size(); ++w)
        expand_pair(p, w, static_cast<std::int64_t>(p * axes_[kWorkload].size() + w) * per_pair, per_pair);
    report_invalid();
  }

private:
  /// The choice for the `offset`-th point of a pair (the five inner axes in mixed radix).
  Choice choice_of(std::size_t p, std::size_t w, std::int64_t offset) const
  {
    Choice choice{};
    choice[kPlatform] = axes_[kPlatform].swept() ? &axes_[kPlatform].items[p] : nullptr;
    choice[kWorkload] = axes_[kWorkload].swept() ? &axes_[kWorkload].items[w] : nullptr;
    for (int a = kAxisCount - 1; a >= kZeroStage; --a) {
      const auto size = static_cast<std::int64_t>(axes_[a].size());
      choice[a] = axes_[a].swept() ? &axes_[a].items[static_cast<std::size_t>(offset % size)] : nullptr;
      offset /= size;
    }
    return choice;
  }

  void expand_pair(std::size_t p, std::size_t w, std::int64_t first_index, std::int64_t count)
  {
    std::optional<model::ResolvedScenario> base;
    std::int64_t offset = 0;
    // Read the pair with its first point that fits; points before it were refused by read_scenario itself.
    for (; offset < count && !base; ++offset) {
      const Choice choice = choice_of(p, w, offset);
      Diagnostics local;
      try {
        base = read_scenario_mapping(point_node(scenario_, choice), spec_.path, local);
        shared_ = std::make_shared<const model::ResolvedScenario>(*base);
        add_point(first_index + offset, base->scenario, choice);
      } catch (const ConfigError& e) {
        auto problem = combination_problem(e.diagnostics(), choice);
        if (!problem) {
          for (const auto& d : e.diagnostics())
            add_unique(d);
          return;
        }
        invalid_.push_back({first_index + offset, choice, std::move(*problem)});
      }
    }
    if (!base)
      return;
    for (; offset < count; ++offset) {
      const Choice choice = choice_of(p, w, offset);
      const model::Scenario scenario = with_choice(base->scenario, choice);
      if (auto problem = check_combination(scenario, shared_->platform))
        invalid_.push_back({first_index + offset, choice, std::move(*problem)});
      else
        add_point(first_index + offset, scenario, choice);
    }
  }

  void add_point(std::int64_t index, const model::Scenario& scenario, const Choice& choice)
  {
    model::SweepPoint point;
    point.index = index;
    point.scenario = scenario;
    point.shared = shared_;
    point.scenario_text = point_text(unswept_text_, choice, index, spec_.sweep_id, spec_.path);
    spec_.points.push_back(std::move(point));
  }

  void add_unique(const Diagnostic& d)
  {
    if (reported_.insert(d.format()).second)
      diagnostics_.add(d);
  }

  void report_invalid()
  {
    if (spec_.skip_invalid) {
      for (auto& combination : invalid_)
        spec_.skipped.push_back({combination.index, combination.problem.reason, combination.problem.message});
      return;
    }
    for (std::size_t i = 0; i < invalid_.size() && i < kMaxReportedCombinations; ++i) {
      const auto& combination = invalid_[i];
      const auto [node, path] = culprit(combination.choice, combination.problem.reason, scenario_);
      report(diagnostics_, spec_.path, node, path,
             "point " + std::to_string(combination.index) + " (" + describe_choice(combination.choice) +
                 "): " + combination.problem.message + "; add 'skip_invalid: true' under sweep: to skip such points");
    }
    if (invalid_.size() > kMaxReportedCombinations)
      diagnostics_.add({spec_.path, 0, 0, "/sweep",
                        "... and " + std::to_string(invalid_.size() - kMaxReportedCombinations) +
                            " more points that do not fit (" + std::to_string(invalid_.size()) + " in all)"});
  }

  struct InvalidCombination {
    std::int64_t index;
    Choice choice;
    CombinationProblem problem;
  };

  model::SweepSpec& spec_;
  const std::array<Axis, kAxisCount>& axes_;
  const YAML::Node& scenario_;
  Diagnostics& diagnostics_;
  std::string unswept_text_;
  std::shared_ptr<const model::ResolvedScenario> shared_; ///< of the pair being expanded
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

  MappingReader sweep(*sweep_node, path, "/sweep", diagnostics);
  std::array<Axis, kAxisCount> axes;
  for (std::size_t a = 0; a < kAxisCount; ++a)
    axes[a] = read_axis(sweep, kAxes[a], diagnostics);
  spec.skip_invalid = sweep.boolean("skip_invalid", Presence::Optional).value_or(false);
  sweep.finish();

  MappingReader scenario(*scenario_node, path, "/scenario", diagnostics);
  if (scenario.valid()) {
    spec.name = scenario.has("name") && scenario.node()["name"].IsScalar() ? scenario.node()["name"].Scalar() : "";
    for (std::size_t a = 0; a < kAxisCount; ++a)
      if (kAxes[a].required_in_scenario && !axes[a].given && !scenario.has(kAxes[a].key))
        report(diagnostics, path, *scenario_node, scenario.path_of(kAxes[a].key),
               std::string("missing required key '") + kAxes[a].key + "' (give it here, or a list of values under /sweep/" +
                   kAxes[a].key + ")");
  }
  long double total = 1;
  for (std::size_t a = 0; a < kAxisCount; ++a) {
    total *= static_cast<long double>(axes[a].size());
    if (axes[a].size() > 1)
      spec.axes.push_back(kAxes[a].key);
  }
  if (total > kMaxSweepPoints)
    report(diagnostics, path, *sweep_node, "/sweep",
           "the sweep expands to " + std::to_string(std::llround(std::min<long double>(total, 1e18L))) +
               (total > 1e18L ? " or more" : "") + " points; at most " + std::to_string(kMaxSweepPoints) +
               " are allowed"); // (a product of long lists can exceed any integer type)
  diagnostics.throw_if_any();

  spec.points_total = static_cast<std::int64_t>(total);
  SweepExpander(spec, axes, *scenario_node, diagnostics).expand();
  if (diagnostics.empty() && spec.points.empty())
    report(diagnostics, path, *sweep_node, "/sweep",
           "every one of the " + std::to_string(spec.points_total) + " points was skipped (" +
               (spec.skipped.empty() ? std::string("none fits") : spec.skipped.front().detail + ", ...") + ")");
  diagnostics.throw_if_any();
  return spec;
}

} // namespace gpuscale::config
