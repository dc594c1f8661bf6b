#pragma once
/// Reads the host input-pipeline costs (workloads/host_input/host_input.yaml, format in
/// workloads/host_input/README.md).

#include "sim/model/HostInputModel.hpp"

#include <string>
#include <vector>

namespace gpuscale::config {

/// One entry per (benchmark, pipeline), in file order; each carries the file's reserved_cores_per_gpu.
/// Throws ConfigError listing every problem (bare numbers for times, duplicate pipelines, unknown keys...).
std::vector<model::HostInputCost> read_host_input(const std::string& path);

} // namespace gpuscale::config
