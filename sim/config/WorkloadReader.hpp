#pragma once
/// Reads a workload trace (workloads/*.yaml) into model::WorkloadTrace.

#include "sim/model/WorkloadTrace.hpp"

#include <string>

namespace gpuscale::config {

/// Throws ConfigError listing every problem (negative FLOPs, unknown layer kinds, duplicate layer names...).
model::WorkloadTrace read_workload(const std::string& path);

} // namespace gpuscale::config
