#include "sim/config/ScenarioReader.hpp"

#include "sim/config/CalibrationReader.hpp"
#include "sim/config/MappingReader.hpp"
#include "sim/config/ScenarioMappingReader.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/ScenarioResolution.hpp"

#include <algorithm>
#include <filesystem>

namespace gpuscale::config {
namespace {

using units::Dimension;
namespace fs = std::filesystem;

constexpr long long kMaxGpus = 1'000'000;
constexpr long long kMaxBatch = 1'000'000'000;

std::string resolve(const std::string& scenario_path, const std::string& relative)
{
  return (fs::path(scenario_path).parent_path() / relative).lexically_normal().string();
}

void read_efficiency(MappingReader reader, model::Efficiency& efficiency)
{
  // Up to the calibration's own bounds (model::ParameterRange): a scenario may state what the calibration gives.
  efficiency.compute =
      reader.number("compute", 1e-6, model::kComputeRange.upper, Presence::Optional).value_or(efficiency.compute);
  // A link's fraction of its line rate: never above 1 (LinkFractions).
  if (auto network = reader.number("network", 1e-6, model::kNetworkRange.upper, Presence::Optional))
    efficiency.network = network;
  efficiency.memory =
      reader.number("memory", 1e-6, model::kMemoryRange.upper, Presence::Optional).value_or(efficiency.memory);
  efficiency.step_overhead_s =
      reader.quantity("step_overhead", Dimension::Seconds, Presence::Optional).value_or(efficiency.step_overhead_s);
  if (auto fixed = reader.quantity("collective_fixed", Dimension::Seconds, Presence::Optional))
    efficiency.collective_fixed_s = fixed;
  if (auto step = reader.quantity("simple_step", Dimension::Seconds, Presence::Optional))
    efficiency.simple_step_s = step;
  reader.finish();
}

void read_simgrid(MappingReader reader, model::SimgridNetworkConfig& config, Diagnostics&)
{
  if (auto network_model = reader.text("network_model", Presence::Optional)) {
    if (*network_model == "CM02" || *network_model == "LV08" || *network_model == "SMPI")
      config.network_model = *network_model;
    else
      reader.error("network_model", "unknown SimGrid network model '" + *network_model + "' (known: CM02, LV08, SMPI)");
  }
  config.crosstraffic = reader.boolean("crosstraffic", Presence::Optional).value_or(config.crosstraffic);
  config.tcp_gamma_bytes =
      reader.positive_quantity("tcp_gamma", Dimension::Bytes, Presence::Optional).value_or(config.tcp_gamma_bytes);
  reader.finish();
}

/// `batch_allocation:` (heterogeneity-aware, as Poplar) as written: per accelerator type,
/// optionally for only `gpus` of them, a micro-batch size and accumulation steps. Resolution
/// (model::resolve_scenario) expands it to the ranks and checks it against the global batch.
void read_batch_allocation(const YAML::Node& node, model::Scenario& s, MappingReader& scenario,
                           Diagnostics& diagnostics)
{
  const std::string path = scenario.path_of("batch_allocation");
  if (!expect_sequence(node, scenario.file(), path, diagnostics))
    return;
  for (std::size_t i = 0; i < node.size(); ++i) {
    MappingReader entry(node[i], scenario.file(), path + "/" + std::to_string(i), diagnostics);
    auto accelerator = entry.identifier("accelerator", Presence::Required);
    auto count = entry.integer("gpus", 1, kMaxGpus, Presence::Optional);
    auto micro = entry.integer("micro_batch_size", 1, kMaxBatch, Presence::Required);
    auto accumulation = entry.integer("accumulation_steps", 1, model::kMaxAccumulationSteps, Presence::Required);
    entry.finish();
    if (accelerator && micro && accumulation)
      s.batch_allocation.push_back({*accelerator, count, *micro, *accumulation});
  }
}

/// The scenario's own fields; the paths of the files it names are returned in `files`.
struct NamedFiles {
  std::optional<std::string> platform, workload, convergence, network_calibration;
};

NamedFiles read_fields(MappingReader& scenario, model::Scenario& s, Diagnostics& diagnostics)
{
  const std::string& path = scenario.file();
  NamedFiles files;
  s.name = scenario.identifier("name", Presence::Required).value_or("");
  files.platform = scenario.text("platform", Presence::Required);
  files.workload = scenario.text("workload", Presence::Required);
  s.gpus = static_cast<int>(scenario.integer("gpus", 1, kMaxGpus, Presence::Required).value_or(0));
  s.global_batch_size = static_cast<int>(scenario.integer("global_batch_size", 1, kMaxBatch, Presence::Required).value_or(0));
  s.micro_batch_size = static_cast<int>(scenario.integer("micro_batch_size", 1, kMaxBatch, Presence::Required).value_or(0));
  if (auto precision = scenario.text("precision", Presence::Optional)) {
    s.precision = model::parse_precision(*precision);
    if (!s.precision)
      scenario.error("precision", "unknown precision '" + *precision + "' (known: " + model::known_precisions() + ")");
  }
  s.zero_stage = static_cast<int>(scenario.integer("zero_stage", 0, 3, Presence::Optional).value_or(0));
  s.tensor_parallel = static_cast<int>(scenario.integer("tp", 1, 1024, Presence::Optional).value_or(1));
  s.context_parallel = static_cast<int>(scenario.integer("cp", 1, 1024, Presence::Optional).value_or(1));
  s.pipeline_parallel = static_cast<int>(scenario.integer("pp", 1, 1024, Presence::Optional).value_or(1));
  s.virtual_pipeline = static_cast<int>(scenario.integer("virtual_pp", 1, 64, Presence::Optional).value_or(1));
  s.sequence_parallel = scenario.boolean("sequence_parallel", Presence::Optional).value_or(false);
  if (auto collective = scenario.text("collective", Presence::Optional)) {
    if (auto parsed = model::parse_collective_algorithm(*collective))
      s.collective = *parsed;
    else
      scenario.error("collective", "unknown collective algorithm '" + *collective + "' (known: " +
                                       model::known_collective_algorithms() + ")");
  }
  if (auto executor = scenario.text("executor", Presence::Optional)) {
    if (auto parsed = model::parse_step_executor(*executor))
      s.executor = *parsed;
    else
      scenario.error("executor", "unknown executor '" + *executor + "' (known: " + model::known_step_executors() + ")");
  }
  if (auto steady_state = scenario.text("steady_state", Presence::Optional)) {
    if (*steady_state == "extend" || *steady_state == "simulate")
      s.extend_steady_state = *steady_state == "extend";
    else
      scenario.error("steady_state", "unknown steady_state '" + *steady_state + "' (known: extend, simulate)");
  }
  if (auto symmetry = scenario.text("symmetry", Presence::Optional)) {
    if (*symmetry == "fold" || *symmetry == "simulate")
      s.fold_symmetric_ranks = *symmetry == "fold";
    else
      scenario.error("symmetry", "unknown symmetry '" + *symmetry + "' (known: fold, simulate)");
  }
  s.bucket_bytes = scenario.positive_quantity("bucket_size", Dimension::Bytes, Presence::Optional);
  s.overlap_comm = scenario.boolean("overlap_comm", Presence::Optional);
  s.activation_checkpointing = scenario.boolean("activation_checkpointing", Presence::Optional).value_or(false);
  if (auto blocks = scenario.integer("activation_checkpointing_blocks", 0, 1'000'000, Presence::Optional)) {
    if (!s.activation_checkpointing)
      scenario.error("activation_checkpointing_blocks",
                     "activation_checkpointing_blocks needs activation_checkpointing: true (it says how many "
                     "checkpoint blocks to recompute)");
    else
      s.activation_checkpointing_blocks = static_cast<int>(*blocks);
  }
  s.cuda_graph = scenario.boolean("cuda_graph", Presence::Optional).value_or(false);
  s.tp_comm_overlap = scenario.boolean("tp_comm_overlap", Presence::Optional).value_or(false);
  s.zero3_prefetch_params =
      static_cast<double>(scenario.integer("zero3_prefetch_params", 1, 1'000'000'000'000LL, Presence::Optional)
                              .value_or(static_cast<long long>(s.zero3_prefetch_params)));
  s.zero3_persistence_threshold_params = static_cast<double>(
      scenario.integer("zero3_persistence_threshold_params", 0, 1'000'000'000'000LL, Presence::Optional)
          .value_or(static_cast<long long>(s.zero3_persistence_threshold_params)));
  s.zero3_max_reuse_distance_params = static_cast<double>(
      scenario.integer("zero3_max_reuse_distance_params", 0, 1'000'000'000'000LL, Presence::Optional)
          .value_or(static_cast<long long>(s.zero3_max_reuse_distance_params)));
  if (auto host = scenario.child("zero_host_cost", Presence::Optional)) {
    MappingReader costs(*host, path, "/scenario/zero_host_cost", diagnostics);
    s.zero_host.module_hook_s =
        costs.quantity("module_hook", Dimension::Seconds, Presence::Optional).value_or(s.zero_host.module_hook_s);
    s.zero_host.tensor_hook_s =
        costs.quantity("tensor_hook", Dimension::Seconds, Presence::Optional).value_or(s.zero_host.tensor_hook_s);
    if (s.zero_host.module_hook_s < 0 || s.zero_host.tensor_hook_s < 0)
      scenario.error("zero_host_cost", "host times cannot be negative");
    costs.finish();
  }
  files.convergence = scenario.text("convergence", Presence::Optional);
  files.network_calibration = scenario.text("network_calibration", Presence::Optional);
  if (auto batch_allocation = scenario.child("batch_allocation", Presence::Optional))
    read_batch_allocation(*batch_allocation, s, scenario, diagnostics);
  s.input_pipeline = scenario.text("input_pipeline", Presence::Optional).value_or("");
  if (auto efficiency = scenario.child("efficiency", Presence::Optional)) {
    s.efficiency_given = true;
    read_efficiency(MappingReader(*efficiency, path, "/scenario/efficiency", diagnostics), s.efficiency);
  }
  if (auto date = scenario.text("software_date", Presence::Optional)) {
    if (auto parsed = model::parse_software_date(*date))
      s.software_date = *parsed;
    else
      scenario.error("software_date", "expected " + std::string(model::kSoftwareDateForms) + ", got '" + *date + "'");
    if (s.efficiency_given)
      scenario.error("software_date", "software_date sets the calibration's efficiencies by its software maturity; "
                                      "this scenario states its own efficiency:");
  }
  if (auto simgrid = scenario.child("simgrid", Presence::Optional))
    read_simgrid(MappingReader(*simgrid, path, "/scenario/simgrid", diagnostics), s.simgrid, diagnostics);
  if (s.executor == model::StepExecutorKind::Analytical && s.simgrid.network_model != "CM02")
    scenario.error("executor", "the analytical executor models the CM02 network only (simgrid: network_model: " +
                                   s.simgrid.network_model + ")");
  return files;
}

/// Reads one named file through the cache; nullptr (with the file's own diagnostics) if it is bad.
template <class Read>
auto read_named(MappingReader& scenario, const char* key, const std::string& file, Read read, Diagnostics& diagnostics)
    -> decltype(read(file))
{
  if (const auto problem = referenced_file_problem(file)) {
    scenario.error(key, std::string(key) + " file '" + file + "' " + *problem);
    return nullptr;
  }
  try {
    return read(file);
  } catch (const ConfigError& e) {
    for (const auto& d : e.diagnostics())
      diagnostics.add(d);
    return nullptr;
  }
}

/// The platform and workload the scenario names. Both are read even when the other is bad, so
/// every problem is reported at once.
void read_platform_and_workload(MappingReader& scenario, const NamedFiles& files, ScenarioReading& reading,
                                ScenarioInputCache& inputs, Diagnostics& diagnostics)
{
  auto& s = reading.scenario;
  if (files.platform) {
    s.platform_path = resolve(scenario.file(), *files.platform);
    reading.platform = read_named(scenario, "platform", s.platform_path,
                                  [&](const std::string& file) { return inputs.platform(file); }, diagnostics);
  }
  if (files.workload) {
    s.workload_path = resolve(scenario.file(), *files.workload);
    reading.workload = read_named(scenario, "workload", s.workload_path,
                                  [&](const std::string& file) { return inputs.workload(file); }, diagnostics);
  }
}

/// The scenario's `network_calibration:` file (gpuscale calibrate-network's output, or any calibration
/// file): its network: and collective: values replace the committed calibration's for this run.
void read_network_calibration(MappingReader& scenario, const NamedFiles& files, ScenarioReading& reading,
                              ScenarioInputCache& inputs, Diagnostics& diagnostics)
{
  if (!files.network_calibration)
    return;
  auto& s = reading.scenario;
  s.network_calibration_path = resolve(scenario.file(), *files.network_calibration);
  reading.network_calibration =
      read_named(scenario, "network_calibration", s.network_calibration_path,
                 [&](const std::string& file) { return inputs.calibration(file); }, diagnostics);
  if (reading.network_calibration && reading.network_calibration->network.empty() &&
      reading.network_calibration->collective_s.empty()) {
    scenario.error("network_calibration", "the calibration file '" + s.network_calibration_path +
                                              "' has no network: or collective: values to apply");
    reading.network_calibration = nullptr;
  }
}

/// The benchmark's convergence table, from the scenario's `convergence` key or next to the workload
/// (<workload dir>/convergence/<benchmark>.yaml), and the host pipeline costs next to the workload
/// (<workload dir>/host_input/host_input.yaml). Both are optional: without a convergence table a run
/// reports the iteration only, without host costs the host side is not modelled.
void read_training_tables(MappingReader& scenario, const NamedFiles& files, ScenarioReading& reading,
                          ScenarioInputCache& inputs, Diagnostics& diagnostics)
{
  auto& s = reading.scenario;
  // Convergence tables are files named, and tables keyed, by the benchmark's name ("" without one).
  const std::string benchmark = reading.workload->benchmark ? model::to_string(*reading.workload->benchmark) : "";
  const fs::path workload_dir = fs::path(s.workload_path).parent_path();
  if (files.convergence) {
    s.convergence_path = resolve(scenario.file(), *files.convergence);
    if (const auto problem = referenced_file_problem(s.convergence_path)) {
      scenario.error("convergence", "convergence file '" + s.convergence_path + "' " + *problem);
      return;
    }
  } else if (std::error_code error; !benchmark.empty() && fs::exists(workload_dir / "convergence" / (benchmark + ".yaml"), error)) {
    s.convergence_path = (workload_dir / "convergence" / (benchmark + ".yaml")).lexically_normal().string();
  }
  const fs::path host_file = workload_dir / "host_input" / "host_input.yaml";
  reading.host_costs_path = host_file.string();
  try {
    if (!s.convergence_path.empty()) {
      reading.convergence_table = inputs.convergence(s.convergence_path);
      // Another benchmark's table would give a time to train off by its whole ratio of samples.
      if (!benchmark.empty() && reading.convergence_table->benchmark != benchmark)
        scenario.error(files.convergence ? "convergence" : "workload",
                       "the convergence table " + s.convergence_path + " is for benchmark '" +
                           reading.convergence_table->benchmark + "', the workload '" + reading.workload->name +
                           "' is benchmark '" + benchmark + "'");
    }
    if (std::error_code error; !benchmark.empty() && fs::exists(host_file, error)) {
      reading.host_costs = inputs.host_input(host_file.string());
    }
  } catch (const ConfigError& e) {
    for (const auto& d : e.diagnostics())
      diagnostics.add(d);
  }
}

/// The node of `field` ("batch_allocation/1/gpus") below `node`, or the deepest existing node on
/// the way (a missing key has no location of its own). Recursive, since assigning a YAML::Node would
/// rebind the node it refers to inside the document.
YAML::Node locate(const YAML::Node& node, const std::string& field)
{
  if (field.empty())
    return node;
  const std::size_t slash = field.find('/');
  const std::string part = field.substr(0, slash);
  const std::string rest = slash == std::string::npos ? "" : field.substr(slash + 1);
  const bool index = !part.empty() && part.size() < 10 && part.find_first_not_of("0123456789") == std::string::npos;
  const YAML::Node next = node.IsMap()                                   ? node[part]
                          : node.IsSequence() && index && std::stoul(part) < node.size() ? node[std::stoul(part)]
                                                                         : YAML::Node();
  if (!next.IsDefined() || next.IsNull())
    return node;
  return locate(next, rest);
}

/// A conflict of the resolution, located at the scenario key it concerns; a precision the scenario
/// leaves to the workload is pointed at in the workload file.
void report_conflict(const model::ScenarioConflict& conflict, MappingReader& scenario, const model::Scenario& s,
                     Diagnostics& diagnostics)
{
  if (conflict.field == "precision" && !scenario.has("precision")) {
    if (auto root = load_yaml_file(s.workload_path, diagnostics)) {
      const YAML::Node& document = *root;
      report(diagnostics, s.workload_path, document["workload"]["precision"], "/workload/precision",
             conflict.message + " (the workload's precision; or set scenario: precision:)");
    }
    return;
  }
  report(diagnostics, scenario.file(), locate(scenario.node(), conflict.field), "/scenario/" + conflict.field,
         conflict.message);
}

} // namespace

model::ResolvedScenario read_scenario(const std::string& path)
{
  Diagnostics diagnostics;
  auto root = load_yaml_file(path, diagnostics);
  if (!root)
    diagnostics.throw_if_any();
  MappingReader top(*root, path, "", diagnostics);
  auto scenario_node = top.child("scenario", Presence::Required);
  top.finish();
  if (!scenario_node)
    diagnostics.throw_if_any();
  ScenarioInputCache inputs;
  const ScenarioReading reading = read_scenario_point(*scenario_node, path, diagnostics, inputs);
  diagnostics.throw_if_any();
  return reading.resolved();
}

std::set<std::string> scenario_keys()
{
  // The keys read_fields asks for, found by reading an empty mapping: one list, kept by the reader.
  Diagnostics ignored;
  MappingReader reader(YAML::Node(YAML::NodeType::Map), "", "/scenario", ignored);
  model::Scenario scenario;
  read_fields(reader, scenario, ignored);
  return reader.keys_read();
}

ScenarioReading read_scenario_point(const YAML::Node& scenario_node, const std::string& path,
                                    Diagnostics& diagnostics, ScenarioInputCache& inputs)
{
  ScenarioReading reading;
  MappingReader scenario(scenario_node, path, "/scenario", diagnostics);
  const NamedFiles files = read_fields(scenario, reading.scenario, diagnostics);
  // Referenced files are read even when the scenario itself has errors, so everything is reported at once.
  read_platform_and_workload(scenario, files, reading, inputs, diagnostics);
  read_network_calibration(scenario, files, reading, inputs, diagnostics);
  if (reading.platform && reading.workload) {
    read_training_tables(scenario, files, reading, inputs, diagnostics);
    reading.resolution = model::resolve_scenario(reading.scenario, reading.resolution_inputs(*reading.platform));
    for (const auto& conflict : reading.resolution.conflicts)
      report_conflict(conflict, scenario, reading.scenario, diagnostics);
  }
  scenario.finish();
  return reading;
}

model::ScenarioInputs ScenarioReading::resolution_inputs(const model::Platform& on) const
{
  model::ScenarioInputs in;
  in.platform = &on;
  in.workload = workload.get();
  in.convergence = convergence_table.get();
  in.host_costs = host_costs.get();
  in.host_costs_path = host_costs_path;
  in.calibration = &default_calibration(); // applies only to a scenario without `efficiency:`
  in.network_calibration = network_calibration.get();
  return in;
}

model::ResolvedScenario ScenarioReading::resolved() const
{
  model::ResolvedScenario resolved;
  resolved.scenario = scenario;
  resolved.platform = *platform;
  resolved.workload = *workload;
  resolved.convergence = resolution.convergence;
  resolved.host_input = resolution.host_input;
  resolved.calibration = scenario.efficiency_given ? nullptr : &default_calibration(); // as resolution_inputs
  return resolved;
}

} // namespace gpuscale::config
