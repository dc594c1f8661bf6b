#include "sim/model/ScenarioResolution.hpp"

#include "sim/model/PipelineSchedule.hpp"
#include "sim/model/ZeroStage.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <variant>

namespace gpuscale::model {
namespace {

using Kind = ScenarioConflict::Kind;

class ConflictList {
public:
  void add(Kind kind, std::string field, std::string message, std::vector<std::string> keys)
  {
    conflicts_.push_back({kind, std::move(field), std::move(message), std::move(keys)});
  }
  bool empty() const { return conflicts_.empty(); }
  std::vector<ScenarioConflict> take() { return std::move(conflicts_); }

private:
  std::vector<ScenarioConflict> conflicts_;
};

/// GPU count against the platform and the model-parallel group; false when the layout cannot be
/// derived (the later checks would only repeat the problem).
bool check_gpu_count(const Scenario& s, const Platform& platform, ConflictList& conflicts)
{
  const int available = platform.gpu_count();
  if (s.gpus > available)
    conflicts.add(Kind::GpuCount, "gpus",
                  "the scenario asks for " + std::to_string(s.gpus) + " GPUs but platform '" + platform.name +
                      "' has " + std::to_string(available),
                  {"gpus", "platform"});
  const int model_parallel = s.model_parallel();
  if (s.gpus > 0 && s.gpus % model_parallel != 0) {
    conflicts.add(Kind::GpuCount, "gpus",
                  std::to_string(s.gpus) + " GPUs do not divide into groups of tp x cp x pp = " +
                      std::to_string(s.tensor_parallel) + " x " + std::to_string(s.context_parallel) + " x " +
                      std::to_string(s.pipeline_parallel),
                  {"gpus", "tp", "cp", "pp"});
    return false;
  }
  return true;
}

void check_layout(const Scenario& s, const Platform& platform, ConflictList& conflicts)
{
  for (std::size_t g = 0; g < platform.node_groups.size(); ++g) {
    const int per_node = platform.node_type_of_group(g).gpus_per_node;
    if (per_node % s.tensor_parallel != 0) {
      conflicts.add(Kind::Layout, "tp",
                    "tensor parallelism stays inside a node: tp = " + std::to_string(s.tensor_parallel) +
                        " does not divide the " + std::to_string(per_node) + " GPUs of node type '" +
                        platform.node_groups[g].node_type + "'",
                    {"tp", "platform"});
      break;
    }
  }
}

const AttentionShape* attention_kernel(const Layer& layer)
{
  for (const auto& kernel : layer.kernels)
    if (const auto* attention = std::get_if<AttentionShape>(&kernel.shape))
      return attention;
  return nullptr;
}

/// Tensor parallelism splits attention by heads and context parallelism splits the sequence
/// (workloads/SCHEMA.md); a model without the layers either splits has nothing to split. The head
/// and sequence checks need the trace's kernel shapes and are skipped for a layer without them.
void check_parallel_split(const Scenario& s, const WorkloadTrace& workload, ConflictList& conflicts)
{
  const int tp = s.tensor_parallel;
  const int cp = s.context_parallel;
  bool tp_layers = false, cp_layers = false, heads_reported = false, sequence_reported = false;
  for (const auto& layer : workload.layers) {
    tp_layers = tp_layers || layer.tp_sharded();
    cp_layers = cp_layers || layer.cp_comm_bytes_per_sample > 0;
    const AttentionShape* attention = attention_kernel(layer);
    if (attention == nullptr)
      continue;
    // Megatron-LM gives each TP rank whole key/value heads (num_query_groups % tp == 0).
    if (tp > 1 && layer.tp_sharded() && attention->kv_heads % tp != 0 && !heads_reported) {
      conflicts.add(Kind::Layout, "tp",
                    "tp = " + std::to_string(tp) + " does not divide the " + std::to_string(attention->kv_heads) +
                        " key/value heads of layer '" + layer.name + "' of workload '" + workload.name +
                        "' (tensor parallelism splits attention by heads)",
                    {"tp", "workload"});
      heads_reported = true;
    }
    // Megatron-Core cuts the sequence into 2 x cp chunks and gives each CP rank two of them, one
    // from each end, so that causal attention's work is balanced (get_batch_on_this_cp_rank).
    const long long chunks = attention->causal ? 2LL * cp : cp;
    if (cp > 1 && layer.cp_comm_bytes_per_sample > 0 && attention->q % chunks != 0 && !sequence_reported) {
      conflicts.add(Kind::Layout, "cp",
                    "cp = " + std::to_string(cp) + " does not divide the " + std::to_string(attention->q) +
                        "-token sequence of layer '" + layer.name + "' of workload '" + workload.name + "' into " +
                        std::to_string(chunks) + " equal chunks" +
                        (attention->causal ? " (2 x cp: causal attention is balanced over two chunks per rank)" : ""),
                    {"cp", "workload"});
      sequence_reported = true;
    }
  }
  if (tp > 1 && !tp_layers)
    conflicts.add(Kind::Layout, "tp",
                  "tp = " + std::to_string(tp) + " but workload '" + workload.name +
                      "' has no tensor-parallel layers: every rank would compute the whole model",
                  {"tp", "workload"});
  if (cp > 1 && !cp_layers)
    conflicts.add(Kind::Layout, "cp",
                  "cp = " + std::to_string(cp) + " but workload '" + workload.name +
                      "' has no self-attention layer whose sequence context parallelism could split",
                  {"cp", "workload"});
}

/// Pipeline parallelism as Megatron-LM allows it: whole blocks per chunk, ZeRO at most 1 across the
/// replicas (its distributed optimizer; DeepSpeed refuses ZeRO-2/3 with a pipeline), and the
/// interleaved schedule with micro-batches in multiples of the stages.
void check_pipeline(const Scenario& s, const WorkloadTrace& workload, ConflictList& conflicts)
{
  const int pp = s.pipeline_parallel;
  const int v = s.virtual_pipeline;
  if (v > 1 && pp == 1)
    conflicts.add(Kind::Layout, "virtual_pp",
                  "virtual_pp = " + std::to_string(v) + " interleaves model chunks over pipeline stages, but pp = 1",
                  {"virtual_pp", "pp"});
  if (pp == 1)
    return;
  const std::size_t units = pipeline_units(workload).size();
  if (units < static_cast<std::size_t>(pp * v))
    conflicts.add(Kind::Layout, "pp",
                  "pp x virtual_pp = " + std::to_string(pp) + " x " + std::to_string(v) + " model chunks, but workload '" +
                      workload.name + "' has " + std::to_string(units) +
                      " blocks (repeat-group copies) to cut into chunks",
                  {"pp", "virtual_pp", "workload"});
  if (pipeline_activation_bytes_per_sample(workload) <= 0)
    conflicts.add(Kind::Layout, "pp",
                  "workload '" + workload.name +
                      "' has no row-parallel layer whose output (the activation one stage sends the next) it gives",
                  {"pp", "workload"});
  if (s.zero_stage > 1)
    conflicts.add(Kind::Layout, "zero_stage",
                  "ZeRO-" + std::to_string(s.zero_stage) +
                      " with pipeline parallelism: pipeline stages accumulate gradients over micro-batches, so at most "
                      "ZeRO-1 (Megatron's distributed optimizer) shards across the replicas",
                  {"zero_stage", "pp"});
  if (v > 1 && s.micro_batch_size > 0 && s.data_parallel() > 0 && s.global_batch_size > 0) {
    const int micro_batches = s.gradient_accumulation_steps();
    if (micro_batches % pp != 0)
      conflicts.add(Kind::BatchSize, "virtual_pp",
                    "the interleaved schedule (virtual_pp = " + std::to_string(v) + ") needs the " +
                        std::to_string(micro_batches) + " micro-batches per replica to be a multiple of pp = " +
                        std::to_string(pp),
                    {"virtual_pp", "pp", "global_batch_size", "micro_batch_size", "gpus", "tp", "cp"});
  }
}

void check_uniform_batch(const Scenario& s, ConflictList& conflicts)
{
  const long long replicas = s.data_parallel();
  if (s.micro_batch_size > 0 && s.gpus > 0 && s.global_batch_size > 0 &&
      s.global_batch_size % (static_cast<long long>(s.micro_batch_size) * replicas) != 0)
    conflicts.add(Kind::BatchSize, "global_batch_size",
                  "global batch size " + std::to_string(s.global_batch_size) +
                      " is not a multiple of micro_batch_size x data-parallel replicas = " +
                      std::to_string(s.micro_batch_size) + " x " + std::to_string(replicas),
                  {"global_batch_size", "micro_batch_size", "gpus", "tp", "cp", "pp", "platform"});
  const long long accumulation_steps =
      s.micro_batch_size > 0 && replicas > 0 ? s.global_batch_size / (static_cast<long long>(s.micro_batch_size) * replicas) : 0;
  if (accumulation_steps > kMaxAccumulationSteps)
    conflicts.add(Kind::BatchSize, "micro_batch_size",
                  "global batch size " + std::to_string(s.global_batch_size) + " = micro-batch " +
                      std::to_string(s.micro_batch_size) + " x " + std::to_string(replicas) + " replicas x " +
                      std::to_string(accumulation_steps) + " accumulation steps; at most " +
                      std::to_string(kMaxAccumulationSteps) +
                      " accumulation steps per training step are simulated (raise micro_batch_size)",
                  {"micro_batch_size", "global_batch_size", "gpus", "tp", "cp", "pp", "platform"});
}

/// A step that cannot be captured asked to run as a CUDA graph (allows_cuda_graph).
void check_cuda_graph(const Scenario& s, ConflictList& conflicts)
{
  if (s.cuda_graph && !allows_cuda_graph(s.zero()))
    conflicts.add(Kind::Layout, "cuda_graph",
                  "a " + to_string(s.zero()) +
                      " step cannot run as a CUDA graph: its parameters are gathered and freed module by module "
                      "from host-side hooks into buffers allocated at run time, which a captured graph cannot "
                      "replay; set cuda_graph: false (kernels are then launched eagerly)",
                  {"cuda_graph", "zero_stage"});
}

/// Overlapped TP communication pipelines reduce-scatters and all-gathers with GEMMs: it exists only
/// under sequence parallelism (Megatron-LM refuses --tp-comm-overlap without --sequence-parallel).
void check_tp_comm_overlap(const Scenario& s, ConflictList& conflicts)
{
  if (s.tp_comm_overlap && !s.sequence_parallel)
    conflicts.add(Kind::Layout, "tp_comm_overlap",
                  "tp_comm_overlap pipelines the reduce-scatters and all-gathers of sequence parallelism with "
                  "the GEMMs next to them; set sequence_parallel: true or tp_comm_overlap: false",
                  {"tp_comm_overlap", "sequence_parallel"});
}

void check_precision(const Scenario& s, const Platform& platform, const WorkloadTrace& workload,
                     ConflictList& conflicts)
{
  const Precision precision = s.precision.value_or(workload.precision);
  for (const auto& [name, gpu] : platform.gpu_types) {
    bool used = false;
    for (std::size_t g = 0; g < platform.node_groups.size(); ++g)
      used = used || platform.node_type_of_group(g).gpu_type == name;
    if (used && !gpu.peak_for(precision))
      conflicts.add(Kind::Layout, "precision",
                    "accelerator '" + name + "' has no peak rate for " + to_string(precision),
                    {"precision", "platform", "workload"});
    // fp16 and bf16 stand in for each other at the same throughput, but fp8 needs FP8 tensor cores
    // (Hopper's Transformer Engine and later) and nvfp4/mxfp4 need FP4 ones (Blackwell, CDNA4 for
    // mxfp4 only): on other parts the request would silently be an fp8 or bf16 run.
    if (used && needs_own_units(precision) && gpu.peak_flop_per_s.count(precision) == 0) {
      std::string formats;
      for (const auto& [format, peak] : gpu.peak_flop_per_s)
        formats += (formats.empty() ? "" : ", ") + to_string(format);
      std::string units = to_string(precision);
      std::transform(units.begin(), units.end(), units.begin(), [](unsigned char c) { return std::toupper(c); });
      conflicts.add(Kind::Layout, "precision",
                    "accelerator '" + name + "' has no " + units + " units (it has " + formats + "): set a precision it has",
                    {"precision", "platform", "workload"});
    }
  }
}

/// The accelerator type of each rank the run uses, in rank order.
std::vector<std::string> accelerator_of_ranks(const Platform& platform, int gpus)
{
  std::vector<std::string> types;
  for (const auto& use : platform.groups_used(gpus))
    types.insert(types.end(), static_cast<std::size_t>(use.gpus), platform.node_type_of_group(use.group).gpu_type);
  return types;
}

/// Expands `batch_allocation` to one share per rank: each entry takes the first unassigned GPUs of
/// its accelerator type, in rank order. Every GPU must be covered and the shares must add up to the
/// global batch.
void expand_batch_allocation(Scenario& s, const Platform& platform, ConflictList& conflicts)
{
  const std::vector<std::string> type_of_rank = accelerator_of_ranks(platform, s.gpus);
  const std::vector<std::string> keys{"batch_allocation", "gpus", "platform", "global_batch_size"};
  std::vector<BatchShare> shares(type_of_rank.size());
  std::vector<bool> assigned(type_of_rank.size(), false);
  bool entries_fit = true;
  for (std::size_t i = 0; i < s.batch_allocation.size(); ++i) {
    const BatchAllocation& entry = s.batch_allocation[i];
    const std::string field = "batch_allocation/" + std::to_string(i) + "/";
    const long long wanted = entry.gpus.value_or(static_cast<long long>(type_of_rank.size()));
    long long given = 0;
    for (std::size_t r = 0; r < type_of_rank.size() && given < wanted; ++r)
      if (type_of_rank[r] == entry.accelerator && !assigned[r]) {
        shares[r] = {static_cast<int>(entry.micro_batch_size), static_cast<int>(entry.accumulation_steps)};
        assigned[r] = true;
        ++given;
      }
    if (given == 0) {
      conflicts.add(Kind::Layout, field + "accelerator",
                    "no unassigned GPU of type '" + entry.accelerator + "' among the " + std::to_string(s.gpus) +
                        " GPUs of the run",
                    keys);
      entries_fit = false;
    } else if (entry.gpus && given < *entry.gpus) {
      conflicts.add(Kind::Layout, field + "gpus",
                    "only " + std::to_string(given) + " unassigned GPUs of type '" + entry.accelerator + "' remain",
                    keys);
      entries_fit = false;
    }
  }
  if (!entries_fit)
    return;
  long long total = 0;
  for (std::size_t r = 0; r < shares.size(); ++r) {
    if (!assigned[r]) {
      conflicts.add(Kind::Layout, "batch_allocation",
                    "GPU " + std::to_string(r) + " (" + type_of_rank[r] + ") has no allocation", keys);
      return;
    }
    total += static_cast<long long>(shares[r].micro_batch) * shares[r].accumulation;
  }
  if (total != s.global_batch_size)
    conflicts.add(Kind::BatchSize, "batch_allocation",
                  "the allocations add up to " + std::to_string(total) + " samples per step, the global batch size is " +
                      std::to_string(s.global_batch_size),
                  keys);
  if (s.model_parallel() != 1)
    conflicts.add(Kind::Layout, "batch_allocation",
                  "uneven batch allocation needs pure data parallelism (tp = cp = pp = 1)",
                  {"batch_allocation", "tp", "cp", "pp"});
  if (reduces_every_micro_batch(s.zero()))
    for (const auto& share : shares)
      if (share.accumulation != shares.front().accumulation) {
        conflicts.add(Kind::Layout, "batch_allocation",
                      "ZeRO-" + std::to_string(s.zero_stage) +
                          " communicates on every micro-batch: all GPUs need the same accumulation_steps",
                      {"batch_allocation", "zero_stage"});
        break;
      }
  s.batch_per_rank = std::move(shares);
}

std::optional<HostInputCost> choose_host_pipeline(const Scenario& s, const ScenarioInputs& inputs,
                                                  ConflictList& conflicts)
{
  // The host pipeline table is keyed by benchmark name; a workload without a benchmark has no row.
  const std::string benchmark = inputs.workload->benchmark ? to_string(*inputs.workload->benchmark) : "";
  if (inputs.host_costs == nullptr) {
    if (!s.input_pipeline.empty())
      conflicts.add(Kind::Layout, "input_pipeline",
                    "no host pipeline table next to the workload (" + inputs.host_costs_path + ")",
                    {"input_pipeline", "workload"});
    return std::nullopt;
  }
  if (const auto* cost = find_host_input_cost(*inputs.host_costs, benchmark, s.input_pipeline))
    return *cost;
  if (!s.input_pipeline.empty())
    conflicts.add(Kind::Layout, "input_pipeline",
                  "no host pipeline '" + s.input_pipeline + "' for benchmark '" + benchmark + "' in " +
                      inputs.host_costs_path,
                  {"input_pipeline", "workload"});
  return std::nullopt;
}

} // namespace

std::vector<std::pair<std::string, Efficiency>> calibrated_efficiencies(const Calibration& calibration,
                                                                         const Platform& platform,
                                                                         const WorkloadTrace& workload, int gpus,
                                                                         std::optional<SoftwareDate> software_date)
{
  std::vector<std::pair<std::string, Efficiency>> by_type;
  for (const auto& use : platform.groups_used(gpus)) {
    const auto& gpu = platform.gpu_type_of(platform.node_type_of_group(use.group));
    if (std::none_of(by_type.begin(), by_type.end(), [&](const auto& t) { return t.first == gpu.name; }))
      by_type.emplace_back(gpu.name, calibration.efficiency_for(workload.calibrated_efficiencies(), gpu.generation, gpu.generation_available_year, software_date));
  }
  return by_type;
}

LinkFractions resolve_link_fractions(const Calibration* calibration, const Calibration* network_calibration,
                                     const Efficiency& what_ifs)
{
  LinkFractions links = calibration != nullptr ? calibration->link_fractions() : LinkFractions{};
  if (network_calibration != nullptr) {
    // Key by key: a fit of one cluster's logs measures the classes its collectives crossed; the
    // other classes keep the committed values (a generation-qualified key stays as specific).
    for (const auto& [key, value] : network_calibration->network)
      links.fraction[key] = value.value;
    if (const auto it = network_calibration->collective_s.find("fixed"); it != network_calibration->collective_s.end())
      links.collective_fixed_s = it->second.value;
    if (const auto it = network_calibration->collective_s.find("simple_step");
        it != network_calibration->collective_s.end())
      links.simple_step_s = it->second.value;
  }
  links.every_link = what_ifs.network;
  links.collective_fixed_s = what_ifs.collective_fixed_s.value_or(links.collective_fixed_s);
  links.simple_step_s = what_ifs.simple_step_s.value_or(links.simple_step_s);
  return links;
}

ScenarioResolution resolve_scenario(Scenario& s, const ScenarioInputs& inputs)
{
  ConflictList conflicts;
  const Platform& platform = *inputs.platform;
  const WorkloadTrace& workload = *inputs.workload;
  s.batch_per_rank.clear();
  s.efficiency_by_type.clear();
  if (check_gpu_count(s, platform, conflicts)) {
    check_layout(s, platform, conflicts);
    check_parallel_split(s, workload, conflicts);
    check_pipeline(s, workload, conflicts);
    check_cuda_graph(s, conflicts);
    check_tp_comm_overlap(s, conflicts);
    check_precision(s, platform, workload, conflicts);
    if (s.batch_allocation.empty())
      check_uniform_batch(s, conflicts);
    else if (conflicts.empty())
      expand_batch_allocation(s, platform, conflicts);
  }
  ScenarioResolution resolution;
  resolution.host_input = choose_host_pipeline(s, inputs, conflicts);
  if (inputs.convergence != nullptr)
    resolution.convergence = *inputs.convergence;
  // The network's fractions are the links', whatever the scenario says of its own efficiencies.
  s.links = resolve_link_fractions(inputs.calibration, inputs.network_calibration, s.efficiency);
  if (inputs.calibration != nullptr && !s.efficiency_given && !platform.node_groups.empty()) {
    const Efficiency what_ifs = s.efficiency;
    if (s.software_date)
      if (auto problem = inputs.calibration->software_date_problem(*s.software_date))
        conflicts.add(Kind::Layout, "software_date", *problem, {"software_date"});
    const auto by_type = calibrated_efficiencies(*inputs.calibration, platform, workload, s.gpus, s.software_date);
    s.efficiency = by_type.empty() ? Efficiency{} : by_type.front().second;
    s.efficiency.network = what_ifs.network;
    s.efficiency.collective_fixed_s = what_ifs.collective_fixed_s;
    s.efficiency.simple_step_s = what_ifs.simple_step_s;
    // A mixed run: every type at its own generation's efficiencies (Scenario::efficiency_for).
    if (by_type.size() > 1)
      for (const auto& [type, efficiency] : by_type)
        s.efficiency_by_type[type] = efficiency;
    if (resolution.convergence && inputs.add_calibrated_run_overhead) {
      resolution.convergence->run_start_overhead_s += inputs.calibration->overhead_s_for(workload.benchmark);
      // The calibration's efficiencies were fitted at what the submissions' runs trained: a time to
      // train from them converges where such runs do (docs/CALIBRATION.md, "Convergence as submitted").
      if (workload.benchmark)
        resolution.convergence->samples_factor *=
            inputs.calibration->convergence_factor_for(*workload.benchmark, s.global_batch_size);
    }
  }
  resolution.conflicts = conflicts.take();
  return resolution;
}

std::vector<ScenarioConflict> resolve_in_place(ResolvedScenario& resolved, ScenarioInputs options)
{
  options.platform = &resolved.platform;
  options.workload = &resolved.workload;
  options.convergence = resolved.convergence ? &*resolved.convergence : nullptr;
  ScenarioResolution resolution = resolve_scenario(resolved.scenario, options);
  resolved.calibration = resolved.scenario.efficiency_given ? nullptr : options.calibration;
  resolved.convergence = std::move(resolution.convergence);
  resolved.host_input = std::move(resolution.host_input);
  return std::move(resolution.conflicts);
}

} // namespace gpuscale::model
