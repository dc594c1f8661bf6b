#include "sim/config/ScenarioReader.hpp"

#include "sim/config/CalibratedScenario.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ConvergenceReader.hpp"
#include "sim/config/HostInputReader.hpp"
#include "sim/config/MappingReader.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/config/ScenarioMappingReader.hpp"
#include "sim/config/WorkloadReader.hpp"
#include "sim/config/YamlFile.hpp"

#include <filesystem>

namespace gpuscale::config {
namespace {

using units::Dimension;
namespace fs = std::filesystem;

constexpr long long kMaxGpus = 1'000'000;
constexpr long long kMaxBatch = 1'000'000'000;
/// The engine simulates every accumulation step of a training step (measured 29 us each for
/// ResNet-50 on 8 GPUs, so 10^5 steps take about 3 s and 10^9 would take 8 hours): a step of more
/// micro-batches per GPU is refused rather than left to run for hours. docs/ROBUSTNESS.md, "Limits".
constexpr long long kMaxAccumulationSteps = 100'000;

std::string resolve(const std::string& scenario_path, const std::string& relative)
{
  return (fs::path(scenario_path).parent_path() / relative).lexically_normal().string();
}

void read_efficiency(MappingReader reader, model::Efficiency& efficiency)
{
  efficiency.compute = reader.number("compute", 1e-6, 1.0, Presence::Optional).value_or(efficiency.compute);
  efficiency.network = reader.number("network", 1e-6, 1.0, Presence::Optional).value_or(efficiency.network);
  efficiency.memory = reader.number("memory", 1e-6, 1.0, Presence::Optional).value_or(efficiency.memory);
  efficiency.step_overhead_s =
      reader.quantity("step_overhead", Dimension::Seconds, Presence::Optional).value_or(efficiency.step_overhead_s);
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

/// Cross-file checks: only meaningful once the platform and workload have been read without errors.
void check_consistency(const model::ResolvedScenario& resolved, MappingReader& scenario, Diagnostics& diagnostics)
{
  const auto& s = resolved.scenario;
  const int available = resolved.platform.gpu_count();
  if (s.gpus > available)
    scenario.error("gpus", "the scenario asks for " + std::to_string(s.gpus) + " GPUs but platform '" +
                               resolved.platform.name + "' has " + std::to_string(available));
  const int model_parallel = s.tensor_parallel * s.context_parallel;
  if (s.gpus > 0 && s.gpus % model_parallel != 0) {
    scenario.error("gpus", std::to_string(s.gpus) + " GPUs do not divide into groups of tp x cp = " +
                               std::to_string(s.tensor_parallel) + " x " + std::to_string(s.context_parallel));
    return;
  }
  for (std::size_t g = 0; g < resolved.platform.node_groups.size(); ++g) {
    const int per_node = resolved.platform.node_type_of_group(g).gpus_per_node;
    if (per_node % s.tensor_parallel != 0) {
      scenario.error("tp", "tensor parallelism stays inside a node: tp = " + std::to_string(s.tensor_parallel) +
                               " does not divide the " + std::to_string(per_node) + " GPUs of node type '" +
                               resolved.platform.node_groups[g].node_type + "'");
      break;
    }
  }
  const long long replicas = s.gpus / model_parallel;
  if (scenario.has("batch_allocation"))
    return; // per-GPU shares are checked against the global batch instead
  if (s.micro_batch_size > 0 && s.gpus > 0 && s.global_batch_size > 0 &&
      s.global_batch_size % (static_cast<long long>(s.micro_batch_size) * replicas) != 0)
    scenario.error("global_batch_size",
                   "global batch size " + std::to_string(s.global_batch_size) +
                       " is not a multiple of micro_batch_size x data-parallel replicas = " +
                       std::to_string(s.micro_batch_size) + " x " + std::to_string(replicas));
  const long long accumulation_steps =
      s.micro_batch_size > 0 && replicas > 0 ? s.global_batch_size / (static_cast<long long>(s.micro_batch_size) * replicas) : 0;
  if (accumulation_steps > kMaxAccumulationSteps)
    scenario.error("micro_batch_size", "global batch size " + std::to_string(s.global_batch_size) + " = micro-batch " +
                                           std::to_string(s.micro_batch_size) + " x " + std::to_string(replicas) +
                                           " replicas x " + std::to_string(accumulation_steps) +
                                           " accumulation steps; at most " + std::to_string(kMaxAccumulationSteps) +
                                           " accumulation steps per training step are simulated (raise micro_batch_size)");
  const model::Precision precision = resolved.precision();
  for (const auto& [name, gpu] : resolved.platform.gpu_types) {
    bool used = false;
    for (std::size_t g = 0; g < resolved.platform.node_groups.size(); ++g)
      used = used || resolved.platform.node_type_of_group(g).gpu_type == name;
    if (used && !gpu.peak_for(precision))
      scenario.error("precision", "accelerator '" + name + "' has no peak rate for " + model::to_string(precision));
  }
  (void)diagnostics;
}

/// `batch_allocation:` (heterogeneity-aware, as Poplar): per accelerator type, optionally for only
/// `gpus` of them, a micro-batch size and accumulation steps. Expanded to one share per GPU rank in
/// rank order; every GPU of the run must be covered, and the shares must add up to the global batch.
void read_batch_allocation(const YAML::Node& node, model::ResolvedScenario& resolved, MappingReader& scenario,
                           Diagnostics& diagnostics)
{
  auto& s = resolved.scenario;
  const std::string path = scenario.path_of("batch_allocation");
  if (!expect_sequence(node, scenario.file(), path, diagnostics))
    return;
  // The accelerator of each rank, in node-group order.
  std::vector<std::string> type_of_rank;
  for (std::size_t g = 0; g < resolved.platform.node_groups.size(); ++g) {
    const auto& type = resolved.platform.node_type_of_group(g);
    for (int i = 0; i < resolved.platform.node_groups[g].count * type.gpus_per_node; ++i)
      type_of_rank.push_back(type.gpu_type);
  }
  type_of_rank.resize(static_cast<std::size_t>(std::max(0, s.gpus)));
  std::vector<model::BatchShare> shares(type_of_rank.size());
  std::vector<bool> assigned(type_of_rank.size(), false);
  for (std::size_t i = 0; i < node.size(); ++i) {
    MappingReader entry(node[i], scenario.file(), path + "/" + std::to_string(i), diagnostics);
    auto accelerator = entry.identifier("accelerator", Presence::Required);
    auto count = entry.integer("gpus", 1, kMaxGpus, Presence::Optional);
    auto micro = entry.integer("micro_batch_size", 1, kMaxBatch, Presence::Required);
    auto accumulation = entry.integer("accumulation_steps", 1, kMaxAccumulationSteps, Presence::Required);
    entry.finish();
    if (!accelerator || !micro || !accumulation)
      continue;
    long long wanted = count.value_or(kMaxGpus);
    long long given = 0;
    for (std::size_t r = 0; r < type_of_rank.size() && given < wanted; ++r)
      if (type_of_rank[r] == *accelerator && !assigned[r]) {
        shares[r] = {static_cast<int>(*micro), static_cast<int>(*accumulation)};
        assigned[r] = true;
        ++given;
      }
    if (given == 0)
      entry.error("accelerator", "no unassigned GPU of type '" + *accelerator + "' among the " + std::to_string(s.gpus) +
                                     " GPUs of the run");
    else if (count && given < *count)
      entry.error("gpus", "only " + std::to_string(given) + " unassigned GPUs of type '" + *accelerator + "' remain");
  }
  if (!diagnostics.empty())
    return;
  long long total = 0;
  for (std::size_t r = 0; r < shares.size(); ++r) {
    if (!assigned[r]) {
      scenario.error("batch_allocation", "GPU " + std::to_string(r) + " (" + type_of_rank[r] + ") has no allocation");
      return;
    }
    total += shares[r].samples();
  }
  if (total != s.global_batch_size)
    scenario.error("batch_allocation", "the allocations add up to " + std::to_string(total) +
                                           " samples per step, the global batch size is " +
                                           std::to_string(s.global_batch_size));
  if (s.tensor_parallel * s.context_parallel != 1)
    scenario.error("batch_allocation", "uneven batch allocation needs pure data parallelism (tp = cp = 1)");
  if (s.zero_stage >= 2)
    for (const auto& share : shares)
      if (share.accumulation != shares.front().accumulation) {
        scenario.error("batch_allocation", "ZeRO-" + std::to_string(s.zero_stage) +
                                               " communicates on every micro-batch: all GPUs need the same "
                                               "accumulation_steps");
        break;
      }
  s.batch_per_rank = std::move(shares);
}

/// The benchmark's convergence table and host data-pipeline cost, from the scenario's `convergence`
/// key or next to the workload (<workload dir>/convergence/<benchmark>.yaml,
/// <workload dir>/host_input/host_input.yaml). Both are optional: without them a run reports the
/// iteration only.
void read_training_tables(model::ResolvedScenario& resolved, MappingReader& scenario,
                          const std::optional<std::string>& convergence_key, Diagnostics& diagnostics)
{
  auto& s = resolved.scenario;
  const std::string benchmark = resolved.workload.benchmark;
  const fs::path workload_dir = fs::path(s.workload_path).parent_path();
  if (convergence_key) {
    s.convergence_path = resolve(scenario.file(), *convergence_key);
    if (const auto problem = referenced_file_problem(s.convergence_path)) {
      scenario.error("convergence", "convergence file '" + s.convergence_path + "' " + *problem);
      return;
    }
  } else if (std::error_code error; !benchmark.empty() && fs::exists(workload_dir / "convergence" / (benchmark + ".yaml"), error)) {
    s.convergence_path = (workload_dir / "convergence" / (benchmark + ".yaml")).lexically_normal().string();
  }
  try {
    if (!s.convergence_path.empty()) {
      resolved.convergence = read_convergence(s.convergence_path);
      // Another benchmark's table would give a time to train off by its whole ratio of samples.
      if (!benchmark.empty() && resolved.convergence->benchmark != benchmark)
        scenario.error(convergence_key ? "convergence" : "workload",
                       "the convergence table " + s.convergence_path + " is for benchmark '" +
                           resolved.convergence->benchmark + "', the workload '" + resolved.workload.name +
                           "' is benchmark '" + benchmark + "'");
    }
    const fs::path host_file = workload_dir / "host_input" / "host_input.yaml";
    if (std::error_code error; !benchmark.empty() && fs::exists(host_file, error)) {
      const auto costs = read_host_input(host_file.string());
      if (const auto* cost = model::find_host_input_cost(costs, benchmark, s.input_pipeline))
        resolved.host_input = *cost;
      else if (!s.input_pipeline.empty())
        scenario.error("input_pipeline", "no host pipeline '" + s.input_pipeline + "' for benchmark '" + benchmark +
                                             "' in " + host_file.string());
    } else if (!s.input_pipeline.empty()) {
      scenario.error("input_pipeline", "no host pipeline table next to the workload (" + host_file.string() + ")");
    }
  } catch (const ConfigError& e) {
    for (const auto& d : e.diagnostics())
      diagnostics.add(d);
  }
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
  return read_scenario_mapping(*scenario_node, path, diagnostics);
}

model::ResolvedScenario read_scenario_mapping(const YAML::Node& scenario_node, const std::string& path,
                                              Diagnostics& diagnostics)
{
  model::ResolvedScenario resolved;
  auto& s = resolved.scenario;
  MappingReader scenario(scenario_node, path, "/scenario", diagnostics);
  s.name = scenario.identifier("name", Presence::Required).value_or("");
  auto platform_path = scenario.text("platform", Presence::Required);
  auto workload_path = scenario.text("workload", Presence::Required);
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
  s.sequence_parallel = scenario.boolean("sequence_parallel", Presence::Optional).value_or(false);
  if (auto collective = scenario.text("collective", Presence::Optional)) {
    if (auto parsed = model::parse_collective_algorithm(*collective))
      s.collective = *parsed;
    else
      scenario.error("collective", "unknown collective algorithm '" + *collective + "' (known: " +
                                       model::known_collective_algorithms() + ")");
  }
  s.bucket_bytes = scenario.positive_quantity("bucket_size", Dimension::Bytes, Presence::Optional).value_or(s.bucket_bytes);
  s.activation_checkpointing = scenario.boolean("activation_checkpointing", Presence::Optional).value_or(false);
  s.zero3_prefetch_params =
      static_cast<double>(scenario.integer("zero3_prefetch_params", 1, 1'000'000'000'000LL, Presence::Optional)
                              .value_or(static_cast<long long>(s.zero3_prefetch_params)));
  auto convergence_path = scenario.text("convergence", Presence::Optional);
  auto batch_allocation = scenario.child("batch_allocation", Presence::Optional);
  s.input_pipeline = scenario.text("input_pipeline", Presence::Optional).value_or("");
  if (auto efficiency = scenario.child("efficiency", Presence::Optional))
    read_efficiency(MappingReader(*efficiency, path, "/scenario/efficiency", diagnostics), s.efficiency);
  if (auto simgrid = scenario.child("simgrid", Presence::Optional))
    read_simgrid(MappingReader(*simgrid, path, "/scenario/simgrid", diagnostics), s.simgrid, diagnostics);

  // Referenced files are read even when the scenario itself has errors, so everything is reported at once.
  bool references_ok = platform_path && workload_path;
  if (platform_path) {
    s.platform_path = resolve(path, *platform_path);
    if (std::error_code error; !fs::exists(s.platform_path, error)) {
      scenario.error("platform", "platform file '" + s.platform_path + "' does not exist");
      references_ok = false;
    } else try {
      resolved.platform = read_platform(s.platform_path);
    } catch (const ConfigError& e) {
      for (const auto& d : e.diagnostics())
        diagnostics.add(d);
      references_ok = false;
    }
  }
  if (workload_path) {
    s.workload_path = resolve(path, *workload_path);
    if (std::error_code error; !fs::exists(s.workload_path, error)) {
      scenario.error("workload", "workload file '" + s.workload_path + "' does not exist");
      references_ok = false;
    } else try {
      resolved.workload = read_workload(s.workload_path);
    } catch (const ConfigError& e) {
      for (const auto& d : e.diagnostics())
        diagnostics.add(d);
      references_ok = false;
    }
  }
  if (references_ok) {
    check_consistency(resolved, scenario, diagnostics);
    if (batch_allocation)
      read_batch_allocation(*batch_allocation, resolved, scenario, diagnostics);
    read_training_tables(resolved, scenario, convergence_path, diagnostics);
    if (!scenario.has("efficiency")) // no efficiencies of its own: the committed MLPerf calibration
      apply_calibration(resolved, default_calibration());
  }
  scenario.finish();
  diagnostics.throw_if_any();
  return resolved;
}

} // namespace gpuscale::config
