#pragma once
/// Reads an MLPerf reference-convergence-point file (mlperf_logging/rcp_checker/training_<ver>/
/// rcps_<benchmark>.json) and averages the runs of each batch size.
///
/// The file is upstream's format, not gpuscale's: a JSON object of records such as
///   "bert_ref_256": {"Benchmark": "bert", "BS": 256, ..., "Epochs to converge": [2834944, ...]}
/// Only "Benchmark", "BS" and the run list ("Epochs to converge", or "samples to converge" as the
/// Llama 2 LoRA file names it) are read; upstream's other keys (Creator, Hyperparams, ...) are
/// ignored. The run list holds whatever the benchmark counts: samples for BERT and Stable Diffusion
/// despite the key's name, epochs for ResNet and SSD (RetinaNet).

#include "sim/model/ConvergenceCurve.hpp"

#include <string>
#include <vector>

namespace gpuscale::config {

struct RcpFile {
  std::string benchmark; ///< the records' common "Benchmark"
  /// One point per batch size, sorted: value = olympic mean of the runs (model::olympic_mean), runs = their count.
  std::vector<model::ConvergencePoint> points;
};

/// Throws ConfigError listing every problem (missing keys, non-numeric runs, fewer than 3 runs,
/// duplicate batch sizes, records of different benchmarks).
RcpFile read_rcp_file(const std::string& path);

} // namespace gpuscale::config
