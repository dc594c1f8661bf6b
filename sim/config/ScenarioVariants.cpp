#include "sim/config/ScenarioVariants.hpp"

#include "sim/config/CalibrationReader.hpp"
#include "sim/config/MappingReader.hpp"
#include "sim/config/ScenarioMappingReader.hpp"
#include "sim/config/YamlFile.hpp"

#include <filesystem>

namespace gpuscale::config {
namespace {

namespace fs = std::filesystem;

std::string absolute(const std::string& path) { return fs::absolute(path).lexically_normal().string(); }

} // namespace

struct ScenarioVariants::Reading {
  YAML::Node root;
  ScenarioReading reading;
};

ScenarioVariants::ScenarioVariants(const std::string& scenario_path) : path_(scenario_path), reading_(new Reading)
{
  // As read_scenario, keeping the files as read for the variants.
  Diagnostics diagnostics;
  auto root = load_yaml_file(path_, diagnostics);
  if (!root)
    diagnostics.throw_if_any();
  reading_->root = *root;
  MappingReader top(*root, path_, "", diagnostics);
  auto scenario_node = top.child("scenario", Presence::Required);
  top.finish();
  if (!scenario_node)
    diagnostics.throw_if_any();
  reading_->reading = read_scenario_point(*scenario_node, path_, diagnostics, inputs_);
  diagnostics.throw_if_any();
  base_ = reading_->reading.resolved();
}

ScenarioVariants::~ScenarioVariants() = default;

ResolvedVariant ScenarioVariants::resolve(model::Scenario variant, const model::Platform& platform) const
{
  // The inputs read_scenario_point hands model::resolve_scenario, from the same files.
  const ScenarioReading& r = reading_->reading;
  model::ScenarioResolution resolution = model::resolve_scenario(variant, r.resolution_inputs(platform));
  ResolvedVariant result;
  result.conflicts = std::move(resolution.conflicts);
  result.resolved.scenario = std::move(variant);
  result.resolved.platform = platform;
  result.resolved.workload = *r.workload;
  result.resolved.convergence = std::move(resolution.convergence);
  result.resolved.host_input = std::move(resolution.host_input);
  result.resolved.calibration = result.resolved.scenario.efficiency_given ? nullptr : &default_calibration();
  return result;
}

std::string ScenarioVariants::scenario_yaml(const model::Scenario& v, const std::string& platform_path) const
{
  YAML::Node scenario = YAML::Clone(reading_->root["scenario"]);
  scenario["name"] = v.name;
  scenario["platform"] = absolute(platform_path.empty() ? v.platform_path : platform_path);
  scenario["workload"] = absolute(v.workload_path);
  if (scenario["convergence"])
    scenario["convergence"] = absolute(v.convergence_path);
  if (scenario["network_calibration"])
    scenario["network_calibration"] = absolute(v.network_calibration_path);
  scenario["gpus"] = v.gpus;
  scenario["global_batch_size"] = v.global_batch_size;
  scenario["micro_batch_size"] = v.micro_batch_size;
  scenario["zero_stage"] = v.zero_stage;
  scenario["tp"] = v.tensor_parallel;
  scenario["cp"] = v.context_parallel;
  scenario["pp"] = v.pipeline_parallel;
  scenario["virtual_pp"] = v.virtual_pipeline;
  scenario["sequence_parallel"] = v.sequence_parallel;
  scenario["tp_comm_overlap"] = v.tp_comm_overlap;
  scenario["activation_checkpointing"] = v.activation_checkpointing;
  scenario.remove("activation_checkpointing_blocks");
  if (v.activation_checkpointing_blocks)
    scenario["activation_checkpointing_blocks"] = *v.activation_checkpointing_blocks;
  scenario["cuda_graph"] = v.cuda_graph;
  scenario.remove("batch_allocation");
  if (!v.batch_allocation.empty()) {
    YAML::Node allocation(YAML::NodeType::Sequence);
    for (const auto& entry : v.batch_allocation) {
      YAML::Node e;
      e["accelerator"] = entry.accelerator;
      if (entry.gpus)
        e["gpus"] = *entry.gpus;
      e["micro_batch_size"] = entry.micro_batch_size;
      e["accumulation_steps"] = entry.accumulation_steps;
      e.SetStyle(YAML::EmitterStyle::Flow);
      allocation.push_back(e);
    }
    scenario["batch_allocation"] = allocation;
  }
  YAML::Node document;
  document["scenario"] = scenario;
  YAML::Emitter out;
  out << document;
  return std::string(out.c_str()) + "\n";
}

std::string ScenarioVariants::platform_yaml(const model::Platform& subset) const
{
  const std::string& path = base_.scenario.platform_path;
  Diagnostics diagnostics;
  auto root = load_yaml_file(path, diagnostics);
  if (!root)
    diagnostics.throw_if_any();
  YAML::Node platform = YAML::Clone(*root);
  if (platform["imports"]) {
    YAML::Node imports(YAML::NodeType::Sequence);
    for (const auto& entry : platform["imports"])
      imports.push_back(absolute((fs::path(path).parent_path() / entry.as<std::string>()).string()));
    platform["imports"] = imports;
  }
  platform["cluster"]["name"] = subset.name;
  YAML::Node groups(YAML::NodeType::Sequence);
  for (const auto& group : subset.node_groups) {
    YAML::Node g;
    g["node_type"] = group.node_type;
    g["count"] = group.count;
    groups.push_back(g);
  }
  platform["cluster"]["node_groups"] = groups;
  YAML::Emitter out;
  out << platform;
  return std::string(out.c_str()) + "\n";
}

} // namespace gpuscale::config
