#pragma once
/// One row of a results file: a run's configuration and outcome. Field names carry their units,
/// since they become HDF5 columns where types vanish. Its values are the file's, in the file's units
/// (time to train in minutes): the row is what isolated runs pass back and what `merge` copies, so a
/// row read and written again stays bit-identical. Code that computes with a time converts it to
/// seconds (units::from_minutes).

#include <cstdint>
#include <string>

namespace gpuscale::results {

enum class Outcome { Ok, Infeasible };
std::string to_string(Outcome outcome);

struct RunRecord {
  std::int64_t run_id = 0; ///< 1-based position in the file; assigned by the writer
  std::string scenario;
  std::string platform;
  std::string workload;
  std::string gpu_models;   ///< accelerator names used, comma-separated
  std::string precision;
  std::string collective;      ///< as requested
  std::string collective_used; ///< after resolving auto
  Outcome outcome = Outcome::Ok;
  std::string infeasible_reason;
  std::string simgrid_config;

  std::int64_t gpus = 0;
  std::int64_t nodes = 0;
  std::int64_t global_batch_size = 0;
  std::int64_t micro_batch_size = 0;
  std::int64_t grad_accum_steps = 0;
  std::int64_t zero_stage = 0;
  std::int64_t activation_checkpointing = 0;
  std::int64_t recomputed_blocks = 0; ///< checkpoint blocks recomputed in backward (0 without checkpointing)
  std::int64_t checkpoint_blocks = 0; ///< checkpoint blocks of the workload (model/Recomputation.hpp)

  double compute_efficiency = 0;
  double scale_up_link_fraction = 0; ///< usable fraction of the first node's GPU-to-GPU links
  double nic_link_fraction = 0;      ///< usable fraction of the NIC links
  double collective_fixed_s = 0;     ///< fixed cost of every collective
  double memory_efficiency = 0;
  double step_overhead_s = 0; ///< calibrated per-step host cost included in iter_time_s
  double tcp_gamma_bytes = 0;

  double iter_time_s = 0;
  double samples_per_s = 0;
  double compute_time_s = 0;
  double comm_time_s = 0;
  double exposed_comm_s = 0;
  double bytes_sent_per_gpu = 0;

  double mem_per_gpu_bytes = 0;
  double mem_capacity_bytes = 0;
  double mem_params_bytes = 0;
  double mem_frozen_bytes = 0;
  double mem_grads_bytes = 0;
  double mem_optimizer_bytes = 0;
  double mem_activations_bytes = 0;
  double mem_buffers_bytes = 0;

  // Sweeps and efficiency analysis. A run outside a sweep has an empty sweep_id and sweep_point -1.
  std::string sweep_id;            ///< 16 hex digits: FNV-1a 64 of the sweep file's text
  std::int64_t sweep_point = -1;   ///< index of the point in the sweep's full product
  std::string gpu_generation;      ///< catalog generation of the GPUs used (comma-separated if mixed)
  double peak_flop_per_gpu_s = 0;  ///< dense peak at the training precision, mean over the GPUs used
  double tdp_w = 0;                ///< board power, mean over the GPUs used
  double price_usd_per_gpu_hour = 0; ///< catalog on-demand price, mean over the GPUs used; 0 = not in the catalog
  double host_cores_per_gpu = 0;   ///< physical host CPU cores per GPU, mean over the nodes used

  // MLPerf-style time to train; 0 when the workload has no convergence table.
  double effective_iter_time_s = 0;    ///< iter_time_s stretched by the host input pipeline if input bound
  double time_to_train_min = 0;        ///< training + evaluation + overhead
  double ttt_training_min = 0;
  double ttt_evaluation_min = 0;
  double ttt_overhead_min = 0;
  double samples_to_converge = 0;
  std::int64_t convergence_extrapolated = 0; ///< 1: global batch outside the reference convergence points
  /// 95 % interval of samples_to_converge: equal to it inside the reference points, the
  /// critical-batch-size fit's interval when extrapolated, NaN when the table has too few points for a fit.
  double samples_to_converge_low = 0;
  double samples_to_converge_high = 0;
  /// 80 % interval of the time to train (sim/uncertainty/ResultUncertainty.hpp): the calibration's
  /// left-out errors of the request's regime, its parameters' spread and, where extrapolated, the
  /// convergence table's; 0 without one (no calibrated efficiencies or no convergence table).
  double time_to_train_low_min = 0;
  double time_to_train_high_min = 0;
  std::int64_t input_bound = 0;        ///< 1: the hosts' CPUs cannot feed the GPUs
  double host_utilisation = 0;         ///< data-loading demand / host capacity, capped at 1
  double host_max_samples_per_s = 0;   ///< per GPU, what the host CPUs can prepare
  std::string executor;                ///< what executed the step: simgrid | analytical

  // Every other knob of the scenario, and what exactly ran (schema 3).
  std::int64_t tp = 1;                 ///< Megatron tensor-parallel degree
  std::int64_t cp = 1;                 ///< context-parallel degree (sequence split across ranks)
  std::int64_t sequence_parallel = 0;  ///< 1: TP all-reduces replaced by reduce-scatter + all-gather
  double bucket_bytes = 0;             ///< gradient all-reduce / reduce-scatter bucket size
  double zero3_prefetch_params = 0;    ///< ZeRO-3 parameter all-gather group size, in parameters
  std::string input_pipeline;          ///< host data pipeline modelled; "" when the host side is not
  std::string batch_per_rank;          ///< uneven allocation "mb x accum" per rank; "" when uniform
  std::string platform_sha256;         ///< SHA-256 of the platform file's contents
  std::string workload_sha256;         ///< SHA-256 of the workload file's contents
  std::string gpuscale_version;        ///< project version (and git describe) of the binary that ran
  std::string convergence_sha256;      ///< SHA-256 of the convergence table used; "" without one

  // Schema 5.
  std::int64_t cuda_graph = 0;         ///< 1: the step is captured and replayed as a CUDA graph
  std::int64_t tp_comm_overlap = 0;    ///< 1: TP collectives pipelined with their GEMMs (Scenario::tp_comm_overlap)

  // Schema 8.
  std::int64_t overlap_comm = 0;       ///< 1: gradient reductions beside backward (Scenario::overlaps_communication)
  double zero_hook_s = 0;              ///< host time of DeepSpeed's ZeRO hooks in one step, the largest of any GPU (ZeroHostCost)

  // Schema 9: the 80 % interval of iter_time_s (time_to_train's is above); 0 and "" without one.
  double iter_time_low_s = 0;
  double iter_time_high_s = 0;
  std::string interval_regime;         ///< the validation mode the interval is reported under (model::PredictionRegime)
  double parameter_log_sd = 0;         ///< log-sd of the time from the calibration's standard errors

  // Schema 10: pipeline parallelism.
  std::int64_t pp = 1;                 ///< pipeline stages
  std::int64_t virtual_pp = 1;         ///< model chunks per stage (interleaved schedule when > 1)
  double pipeline_wait_s = 0;          ///< largest time a GPU waited in pipeline exchanges (bubble and sends)
  double pipeline_bytes_per_gpu = 0;   ///< largest bytes one GPU sent to its pipeline neighbours

  bool operator==(const RunRecord&) const = default;
};

} // namespace gpuscale::results
