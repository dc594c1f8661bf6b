#pragma once
/// Whether the host CPUs can feed the GPUs: each benchmark's input pipeline (read, decode, augment,
/// collate) costs host core time per sample; a node's cores are shared by its GPUs.
///
///   capacity per GPU = (host cores / GPUs per node - reserved cores per GPU) / core time per sample
///   demand per GPU   = samples one GPU trains on per second = B / (t_iter * GPUs)
///   input bound      <=> demand > capacity;  host utilisation = min(1, demand / capacity)
///
/// The pipeline is assumed to parallelise perfectly over worker processes (PyTorch DataLoader
/// workers, DALI CPU threads) and to overlap fully with GPU work, so the host only slows training
/// when capacity < demand; then the run proceeds at the host's rate (slowdown = demand / capacity).

#include "sim/model/Platform.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace gpuscale::model {

/// Host cost of one benchmark's input pipeline (workloads/host_input/host_input.yaml).
struct HostInputCost {
  std::string benchmark;
  std::string pipeline;               ///< e.g. cpu-decode, dali-gpu-decode
  double core_time_per_sample_s = 0;  ///< host core-seconds per training sample, > 0
  double reserved_cores_per_gpu = 1;  ///< cores each GPU's training process keeps for itself, >= 0
  std::string basis;                  ///< where the estimate comes from
};

/// What one GPU asks of its host: its share of the node's physical cores and the samples it trains
/// on per second at the simulated iteration time (both >= 0 and finite).
struct HostInputDemand {
  double host_cores_per_gpu = 0;
  double gpu_samples_per_s = 0;
};

/// Outcome of HostInputModel::evaluate. Rates are per GPU, in samples per second.
struct HostInputLoad {
  double host_cores_per_gpu = 0;
  double loader_cores_per_gpu = 0;       ///< host cores per GPU minus the reserved ones, >= 0
  double max_samples_per_s = 0;          ///< what the host can prepare for one GPU
  double gpu_samples_per_s = 0;          ///< what one GPU consumes at the simulated iteration time
  double fed_samples_per_s = 0;          ///< min(max, gpu)
  bool input_bound = false;              ///< gpu > max
  double host_utilisation = 0;           ///< min(1, gpu / max); 1 when max is 0
  double slowdown = 1;                   ///< iteration-time factor when input bound (gpu / max), else 1; inf if max is 0
};

class HostInputModel {
public:
  /// Throws std::invalid_argument if the cost is not positive or the reserved cores are negative.
  explicit HostInputModel(HostInputCost cost);

  /// Throws std::invalid_argument on negative or non-finite demand fields.
  HostInputLoad evaluate(const HostInputDemand& demand) const;
  /// The same with the node's cores (sockets x cores per socket) shared by its GPUs.
  HostInputLoad evaluate(const NodeType& node, double gpu_samples_per_s) const;

  const HostInputCost& cost() const { return cost_; }

private:
  HostInputCost cost_;
};

/// The cost of `benchmark`'s `pipeline`, or of its first listed pipeline when `pipeline` is empty;
/// nullptr if there is none.
const HostInputCost* find_host_input_cost(const std::vector<HostInputCost>& costs, std::string_view benchmark,
                                          std::string_view pipeline = {});

} // namespace gpuscale::model
