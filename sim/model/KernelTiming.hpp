#pragma once
/// Kernel times measured on a real GPU (calibration/measured/, taken by measure_kernels.py there): each
/// one kernel of a workload trace, or of a synthetic grid, with the shape it ran at, so that the kernel
/// time model (sim/engine/ComputeCostModel.hpp) can be put beside it kernel by kernel.

#include "sim/model/KernelShape.hpp"
#include "sim/model/Precision.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuscale::model {

/// Which of a kernel's runs was timed: the forward kernel, or one of the backward ones the model
/// prices (ComputeCostModel.hpp: a GEMM or convolution's input-gradient and weight-gradient
/// products, a fused attention's one backward kernel).
enum class KernelPass { Forward, InputGradient, WeightGradient, Backward };
std::string to_string(KernelPass pass);
std::optional<KernelPass> parse_kernel_pass(std::string_view name);
std::string known_kernel_passes(); ///< "forward, input_gradient, ...", for messages

/// Where a timed kernel comes from: a kernel of a workload trace (`trace`), a product of a shape grid
/// (`grid`), a streaming kernel of a chosen size (`stream`), or the smallest kernel there is, whose
/// time is the per-kernel cost (`launch`).
enum class KernelSource { Trace, Grid, Stream, Launch };
std::string to_string(KernelSource source);
std::optional<KernelSource> parse_kernel_source(std::string_view name);
std::string known_kernel_sources(); ///< "trace, grid, stream, launch", for messages

/// One timed kernel.
struct KernelTiming {
  KernelSource source = KernelSource::Trace;
  std::string workload; ///< trace name ("" for synthetic kernels)
  std::string layer;    ///< layer name in the trace ("" for synthetic kernels)
  KernelPass pass = KernelPass::Forward;
  Precision precision = Precision::Bf16;
  int micro_batch = 1;  ///< samples the shape is multiplied by, as the simulator multiplies it
  /// The shape of one sample as this GPU ran it (a tensor-parallel rank's share already taken).
  Kernel kernel;
  long long count = 1;  ///< how many kernels of this shape one pass of the workload runs
  double graph_s = 0;   ///< seconds per kernel, replayed from a CUDA graph
  std::optional<double> eager_s; ///< seconds per kernel, each launched by the host
  int line = 0;         ///< line in the file, for messages
};

/// A file of timings and its `environment:` pairs, which say where they were taken (GPU, driver, CUDA,
/// PyTorch, date).
struct KernelTimings {
  std::vector<std::pair<std::string, std::string>> environment;
  std::vector<KernelTiming> timings;
};

} // namespace gpuscale::model
