#pragma once
/// One what-if run: a platform, a workload, and how the training job is laid out on it.

#include "sim/model/ConvergenceTable.hpp"
#include "sim/model/HostInputModel.hpp"
#include "sim/model/LinkFractions.hpp"
#include "sim/model/Platform.hpp"
#include "sim/model/Precision.hpp"
#include "sim/model/SoftwareDate.hpp"
#include "sim/model/WorkloadTrace.hpp"
#include "sim/model/ZeroHostCost.hpp"
#include "sim/model/ZeroStage.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscale::model {

/// How a collective is carried out. The *_flow forms simulate each phase as one concurrent flow per
/// ring link (O(p) communications) instead of step by step (O(p²)).
enum class CollectiveAlgorithm { Ring, RingFlow, Hierarchical, HierarchicalFlow, HalvingDoubling, Auto };
std::string to_string(CollectiveAlgorithm algorithm);
std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view name);
std::string known_collective_algorithms();

/// What executes the step program: SimGrid (flows share links: contention simulated) or the
/// analytical α–β executor (no contention; equal to SimGrid where no two transfers share a link).
enum class StepExecutorKind { Simgrid, Analytical };
std::string to_string(StepExecutorKind executor);
std::optional<StepExecutorKind> parse_step_executor(std::string_view name);
std::string known_step_executors();

/// SimGrid network-model settings. Recorded in every result: they change the simulated times.
struct SimgridNetworkConfig {
  std::string network_model = "CM02";
  bool crosstraffic = false;
  /// TCP window in bytes; SimGrid caps every flow at tcp_gamma / (2 * route latency).
  double tcp_gamma_bytes = 4.0 * 1024 * 1024 * 1024;
};

/// Fractions of datasheet peak actually reached. Calibration fits these against MLPerf results.
struct Efficiency {
  double compute = 0.5; ///< of peak FLOP/s at the training precision
  double memory = 0.8;  ///< of HBM bandwidth, for memory-bound work (optimizer step)
  /// Seconds every optimizer step spends outside the simulated kernels and collectives, overlapping
  /// nothing (kernel launches, optimizer bookkeeping, host synchronisation): added to the step.
  double step_overhead_s = 0;
  /// What-ifs on the network, as the scenario's `efficiency:` writes them; absent: the network
  /// calibration's (a property of the links, not of the benchmark). See LinkFractions.
  std::optional<double> network{};            ///< every link (and NVLS) at this fraction of its line rate
  std::optional<double> collective_fixed_s{}; ///< LinkFractions::collective_fixed_s
  std::optional<double> simple_step_s{};      ///< LinkFractions::simple_step_s
};

/// One entry of a scenario's `batch_allocation:` as written: `gpus` GPUs (all that remain when
/// absent) of accelerator type `accelerator` each run `accumulation_steps` micro-batches of
/// `micro_batch_size` per optimizer step. Resolution expands the entries to one share per rank.
struct BatchAllocation {
  std::string accelerator;
  std::optional<long long> gpus;
  long long micro_batch_size = 0;
  long long accumulation_steps = 0;
};

/// One GPU's share of the global batch: micro-batch size and micro-batches per optimizer step.
struct BatchShare {
  int micro_batch = 0;
  int accumulation = 1;
  /// 64-bit: both factors may be up to 10^9 in an input that is then refused by its sum.
  long long samples() const { return static_cast<long long>(micro_batch) * accumulation; }
  bool operator==(const BatchShare&) const = default;
};

struct Scenario {
  std::string name;
  std::string platform_path;
  std::string workload_path;
  int gpus = 0;
  int global_batch_size = 0;
  int micro_batch_size = 0;
  std::optional<Precision> precision; ///< nullopt: the workload's
  int zero_stage = 0; ///< as written (0-3); zero() gives the stage and its rules
  int tensor_parallel = 1;  ///< tp: Megatron TP degree, inside a node
  int context_parallel = 1; ///< cp: sequence split across ranks (ring attention)
  /// pp: pipeline stages (Megatron-LM), each a consecutive share of the trace's blocks on its own
  /// GPUs; the step runs the 1F1B schedule, or the interleaved one with virtual_pipeline > 1.
  int pipeline_parallel = 1;
  /// virtual_pp: model chunks per pipeline stage (Megatron's interleaved schedule); 1: plain 1F1B.
  int virtual_pipeline = 1;
  bool sequence_parallel = false; ///< TP all-reduces become reduce-scatter + all-gather; activations / tp
  CollectiveAlgorithm collective = CollectiveAlgorithm::Auto;
  /// `bucket_size:` the gradient reduce bucket (and DeepSpeed's allgather bucket of stages 1-2);
  /// nullopt: the stage's default (default_bucket_bytes: DDP's 25 MB, DeepSpeed's 5e8 elements).
  std::optional<double> bucket_bytes;
  /// `overlap_comm:` gradient reductions beside backward (true) or blocking it (false); nullopt: the
  /// stage's default (overlaps_communication_by_default).
  std::optional<bool> overlap_comm;
  /// ZeRO-3 prefetches the next modules' parameters while their gathered size stays under this many
  /// elements (DeepSpeed stage3_prefetch_bucket_size, default 5e7).
  double zero3_prefetch_params = 5e7;
  /// ZeRO-3 keeps a module's parameters whole on every rank, never gathered, below this many
  /// elements (DeepSpeed stage3_param_persistence_threshold, default 1e5: norms, small biases).
  double zero3_persistence_threshold_params = 1e5;
  /// ZeRO-3 keeps a module's gathered parameters for its next use in the micro-batch when the other
  /// modules' parameters used before it stay within this many elements (DeepSpeed
  /// stage3_max_reuse_distance, default 1e9); beyond, it frees them and gathers again.
  double zero3_max_reuse_distance_params = 1e9;
  /// Host time of DeepSpeed's Python hooks, on the compute stream's critical path (ZeroHostCost).
  ZeroHostCost zero_host;
  bool activation_checkpointing = false;
  /// With activation_checkpointing, recompute only the first N checkpoint blocks and keep the others'
  /// activations (model/Recomputation.hpp); absent: every block.
  std::optional<int> activation_checkpointing_blocks;
  /// The step is captured and replayed as a CUDA graph (MLPerf submissions do): each kernel then
  /// costs about a microsecond to launch instead of the host's few microseconds
  /// (shared/references/COMPUTE.md; NVIDIA's 'Getting started with CUDA Graphs'). Default false:
  /// eager PyTorch, DeepSpeed. Read by the kernel time model (engine/ComputeCostModel).
  bool cuda_graph = false;
  /// Tensor-parallel communication overlapped with the GEMMs next to it, as Megatron-LM's
  /// --tp-comm-overlap (TransformerEngine userbuffers) runs it under sequence parallelism: each
  /// all-gather is pipelined with the GEMM that consumes it and each reduce-scatter with the GEMM
  /// that produces it, chunk by chunk (engine/ScheduleBuilder). Requires sequence_parallel. Default
  /// false: every forward TP collective blocks (Megatron's default).
  bool tp_comm_overlap = false;
  Efficiency efficiency;
  /// The scenario states its efficiencies (`efficiency:`); otherwise resolution applies the
  /// calibration's for the hardware the run uses.
  bool efficiency_given = false;
  /// Derived by resolution on a run that uses more than one accelerator type and states no
  /// `efficiency:`: each type's calibrated efficiencies (compute, memory: the calibration's for the
  /// benchmark and that type's generation), by GpuType::name. `efficiency` is then the first used
  /// type's (what the results row reports). Empty: `efficiency` applies to every GPU.
  std::map<std::string, Efficiency> efficiency_by_type;
  /// `software_date:` the date of the software the run uses: the calibrated compute and memory
  /// efficiencies are the calibration's software maturity at that date (Calibration::efficiency_for).
  /// nullopt: the calibration's reference date (its efficiencies as they are).
  std::optional<SoftwareDate> software_date;

  /// The compute and memory efficiencies GPUs of `gpu`'s type run at: the one rule the engine and
  /// the planner's profiler read them by. The step overhead and the network what-ifs are the run's
  /// (`efficiency`).
  const Efficiency& efficiency_for(const GpuType& gpu) const
  {
    const auto it = efficiency_by_type.find(gpu.name);
    return it != efficiency_by_type.end() ? it->second : efficiency;
  }
  /// Derived by resolution: the network calibration's link fractions and collective costs, with the
  /// what-ifs of `efficiency` applied. Every link of the run gets its class's fraction.
  LinkFractions links;
  SimgridNetworkConfig simgrid;
  StepExecutorKind executor = StepExecutorKind::Simgrid;
  /// `steady_state: extend` (default): on SimGrid, repeated runs of the step program (layers,
  /// micro-batches) are simulated a few units long and extended by their period once the events
  /// show it is reached (engine/SteadyStateRun.hpp); `simulate`: every unit is simulated.
  bool extend_steady_state = true;
  /// `symmetry: fold` (default): on SimGrid, a step whose nodes a shift maps onto themselves
  /// simulates one block of nodes for all (engine/SymmetryFold.hpp); `simulate`: every GPU.
  bool fold_symmetric_ranks = true;
  std::string convergence_path; ///< "": <workload dir>/convergence/<benchmark>.yaml if it exists
  /// `network_calibration:` (resolved path; "": none): a calibration file whose network: and
  /// collective: values replace the committed calibration's (ScenarioInputs::network_calibration).
  std::string network_calibration_path;
  std::string input_pipeline;   ///< host data pipeline; "": the first listed for the benchmark

  /// Heterogeneity-aware allocation (as Poplar), as written; empty: every GPU runs the same share.
  std::vector<BatchAllocation> batch_allocation;
  /// Derived by resolution from batch_allocation: each GPU rank's own share; empty = every GPU runs
  /// micro_batch_size x gradient_accumulation_steps(). The shares add up to the global batch.
  std::vector<BatchShare> batch_per_rank;

  /// What GPU `rank` runs per step.
  BatchShare batch_of_rank(int rank) const
  {
    if (batch_per_rank.empty())
      return {micro_batch_size, gradient_accumulation_steps()};
    return batch_per_rank.at(static_cast<std::size_t>(rank));
  }

  /// GPUs of one model replica: tp x cp x pp.
  int model_parallel() const { return tensor_parallel * context_parallel * pipeline_parallel; }
  /// Data-parallel degree: model replicas.
  int data_parallel() const { return gpus / model_parallel(); }
  /// The ZeRO stage; throws std::invalid_argument if zero_stage is not 0-3.
  ZeroStage zero() const { return zero_stage_of(zero_stage); }
  /// Gradient reductions overlap backward: `overlap_comm` as written, else the stage's default.
  bool overlaps_communication() const { return overlap_comm.value_or(overlaps_communication_by_default(zero())); }
  /// The reduce (and allgather) bucket: `bucket_size` as written, else the stage's default.
  double reduce_bucket_bytes() const { return bucket_bytes.value_or(default_bucket_bytes(zero())); }
  /// Micro-batches each replica runs per optimizer step.
  int gradient_accumulation_steps() const { return global_batch_size / (micro_batch_size * data_parallel()); }
};

struct Calibration;

/// Everything one simulation needs, resolved: the scenario and the objects its paths named.
struct ResolvedScenario {
  Scenario scenario;
  Platform platform;
  WorkloadTrace workload;
  std::optional<ConvergenceTable> convergence; ///< absent: no time to train, only iteration figures
  std::optional<HostInputCost> host_input;     ///< absent: the host side is not modelled
  /// The calibration whose efficiencies the scenario runs at, and whose left-out errors give its
  /// interval (sim/uncertainty); nullptr when the scenario states its own (`efficiency:`). Not owned:
  /// the embedded calibration, or one its command holds for as long as it simulates.
  const Calibration* calibration = nullptr;

  Precision precision() const { return scenario.precision.value_or(workload.precision); }
};

} // namespace gpuscale::model
