#pragma once
/// Kernel times measured on a GPU against the kernel time model (docs/VALIDATION.md, "Kernel
/// timings"): per op and pass how far the model is from the measurement and what fraction of the
/// datasheet roofline the kernels reach; the fixed time per kernel and the streaming bandwidth that
/// the memory-bound kernels imply; the smallest kernel's time; and per workload and micro-batch the
/// sum of the step's kernels, measured against modelled. The model's side comes in as plain numbers
/// (engine::model_timed_kernel computes them), so this never sees the engine.

#include "sim/model/KernelTiming.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

/// One timed kernel beside the model's figures for it.
struct KernelTimingPoint {
  model::KernelSource source = model::KernelSource::Trace;
  std::string op;       ///< gemm, conv, attention, elementwise
  model::KernelPass pass = model::KernelPass::Forward;
  std::string workload;
  int micro_batch = 1;
  long long count = 1;
  double measured_s = 0; ///< replayed from a CUDA graph
  std::optional<double> eager_s; ///< launched by the host, where timed
  double bytes = 0;      ///< HBM bytes as the model counts them
  double roof_s = 0;     ///< the datasheet roofline (useful FLOP at the dense peak, bytes at HBM bandwidth)
  double model_s = 0;    ///< the kernel model at the calibrated fractions, with its per-kernel launch
  bool memory_bound = false;
};

/// The kernels of one op and pass.
struct KernelOpSummary {
  std::string op;
  model::KernelPass pass = model::KernelPass::Forward;
  int kernels = 0;
  double median_ratio = 0;         ///< measured / modelled
  double p10_ratio = 0, p90_ratio = 0;
  double median_roof_fraction = 0; ///< roof_s / measured: the share of the datasheet roofline reached
};

/// measured = fixed_s + bytes / bandwidth over memory-bound kernels, fitted on relative errors (each
/// kernel counts alike, whatever its size).
struct StreamingFit {
  int kernels = 0;
  double fixed_s = 0, fixed_s_error = 0;
  double bandwidth_Bps = 0;
  double bandwidth_fraction = 0, bandwidth_fraction_error = 0; ///< of the datasheet HBM bandwidth
};

/// One workload at one micro-batch: every trace kernel of its step, count times, measured and modelled.
struct WorkloadKernelSum {
  std::string workload;
  int micro_batch = 1;
  int kernels = 0;            ///< distinct kernels timed
  double measured_s = 0;      ///< sum of count x measured
  double modelled_s = 0;      ///< sum of count x modelled
  double memory_bound_share = 0; ///< of modelled_s, the kernels the model finds memory-bound
};

struct KernelTimingCheck {
  std::vector<KernelOpSummary> ops;
  std::optional<StreamingFit> streaming; ///< nullopt: fewer than three memory-bound kernels of different sizes
  std::optional<double> launch_graph_s;  ///< median time of the `launch` kernels, replayed from a graph
  std::optional<double> launch_eager_s;  ///< the same, launched by the host (where their eager time was taken)
  std::vector<WorkloadKernelSum> workloads;
};

/// `hbm_Bps`: the GPU's datasheet HBM bandwidth (the fraction StreamingFit reports).
KernelTimingCheck check_kernel_timings(const std::vector<KernelTimingPoint>& points, double hbm_Bps);

} // namespace gpuscale::analysis
