#pragma once
/// Reads a file of kernel times measured on a GPU (calibration/measured/*.yaml, written by
/// calibration/measured/measure_kernels.py; the format is in calibration/measured/README.md):
///
///   environment: {gpu: "NVIDIA H200", sm_count: 132, torch: "2.5.1", ...}   # free `key: text` pairs
///   timings:
///     - {source: trace, workload: bert-large, layer: encoder.0.attention.qkv, pass: forward,
///        precision: fp16, micro_batch: 8, count: 24, graph_time: "1.2e-05 s", eager_time: "1.6e-05 s",
///        kernel: {op: gemm, m: 256, n: 3072, k: 1024, batch: 1, backward_factor: 2}}
///
/// `kernel:` is a trace's kernel entry (workloads/SCHEMA.md, "Kernels"), read by the same reader, for
/// one sample as this GPU ran it; `micro_batch` multiplies it as the simulator does. Throws ConfigError
/// with every problem located (file, line, field).

#include "sim/model/KernelTiming.hpp"

#include <string>

namespace gpuscale::config {

model::KernelTimings read_kernel_timings(const std::string& path);

} // namespace gpuscale::config
