#include "sim/model/HostInputModel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gpuscale::model {

HostInputModel::HostInputModel(HostInputCost cost) : cost_(std::move(cost))
{
  if (!(cost_.core_time_per_sample_s > 0) || !std::isfinite(cost_.core_time_per_sample_s))
    throw std::invalid_argument("HostInputModel: core time per sample must be positive and finite");
  if (!(cost_.reserved_cores_per_gpu >= 0) || !std::isfinite(cost_.reserved_cores_per_gpu))
    throw std::invalid_argument("HostInputModel: reserved cores per GPU must be non-negative and finite");
}

HostInputLoad HostInputModel::evaluate(const HostInputDemand& demand) const
{
  const double host_cores_per_gpu = demand.host_cores_per_gpu;
  const double gpu_samples_per_s = demand.gpu_samples_per_s;
  if (!(host_cores_per_gpu >= 0) || !std::isfinite(host_cores_per_gpu))
    throw std::invalid_argument("HostInputModel: host cores per GPU must be non-negative and finite");
  if (!(gpu_samples_per_s >= 0) || !std::isfinite(gpu_samples_per_s))
    throw std::invalid_argument("HostInputModel: GPU samples per second must be non-negative and finite");

  HostInputLoad load;
  load.host_cores_per_gpu = host_cores_per_gpu;
  load.loader_cores_per_gpu = std::max(0.0, host_cores_per_gpu - cost_.reserved_cores_per_gpu);
  load.max_samples_per_s = load.loader_cores_per_gpu / cost_.core_time_per_sample_s;
  load.gpu_samples_per_s = gpu_samples_per_s;
  load.fed_samples_per_s = std::min(load.max_samples_per_s, gpu_samples_per_s);
  load.input_bound = gpu_samples_per_s > load.max_samples_per_s;
  if (load.max_samples_per_s > 0) {
    const double ratio = gpu_samples_per_s / load.max_samples_per_s;
    load.host_utilisation = std::min(1.0, ratio);
    load.slowdown = std::max(1.0, ratio);
  } else {
    load.host_utilisation = gpu_samples_per_s > 0 ? 1.0 : 0.0;
    load.slowdown = gpu_samples_per_s > 0 ? std::numeric_limits<double>::infinity() : 1.0;
  }
  return load;
}

HostInputLoad HostInputModel::evaluate(const NodeType& node, double gpu_samples_per_s) const
{
  if (node.gpus_per_node <= 0)
    throw std::invalid_argument("HostInputModel: node type '" + node.name + "' has no GPUs");
  return evaluate(HostInputDemand{static_cast<double>(node.host_cores()) / node.gpus_per_node, gpu_samples_per_s});
}

const HostInputCost* find_host_input_cost(const std::vector<HostInputCost>& costs, std::string_view benchmark,
                                          std::string_view pipeline)
{
  for (const auto& cost : costs)
    if (cost.benchmark == benchmark && (pipeline.empty() || cost.pipeline == pipeline))
      return &cost;
  return nullptr;
}

} // namespace gpuscale::model
