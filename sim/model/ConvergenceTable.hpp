#pragma once
/// A benchmark's convergence table (workloads/convergence/<benchmark>.yaml): the reference points
/// derived from an MLPerf RCP file, the evaluation cadence, and the fixed per-run overhead.

#include "sim/model/ConvergenceCurve.hpp"
#include "sim/model/ConvergenceModel.hpp"
#include "sim/model/EvaluationSchedule.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuscale::model {

/// What the RCP runs count: samples (BERT, Llama 2 LoRA, Stable Diffusion) or epochs (ResNet,
/// RetinaNet), the latter multiplied by the training-set size.
enum class ConvergenceUnit { Samples, Epochs };
std::string to_string(ConvergenceUnit unit);
std::optional<ConvergenceUnit> parse_convergence_unit(std::string_view name);
std::string known_convergence_units();

struct ConvergenceTable {
  std::string benchmark;     ///< gpuscale's name, as in the workload traces (resnet, retinanet, ...)
  ConvergenceUnit unit = ConvergenceUnit::Samples;
  std::optional<double> dataset_samples; ///< training-set size; required for unit epochs, absent otherwise
  std::string rcp_file;      ///< e.g. training_4.1.0/rcps_bert.json, relative to the RCP folder
  std::string rcp_benchmark; ///< the RCP file's "Benchmark" (ssd for RetinaNet)
  std::string source;        ///< provenance of the RCP file (repository, commit, licence)
  std::vector<ConvergencePoint> points; ///< in `unit`, batch sizes strictly increasing
  EvaluationSchedule evaluation;        ///< in samples
  double run_start_overhead_s = 0;      ///< timed per-run time that is neither training nor evaluation
  /// The samples a run trains over the points': a calibration's convergence factor
  /// (model::ConvergenceFactor), set when a scenario is resolved with it; 1 for the table as read.
  double samples_factor = 1;

  /// Samples per unit: 1 for samples, dataset_samples for epochs.
  double samples_per_unit() const;
  /// The points converted to samples, times samples_factor. Throws std::invalid_argument on an
  /// invalid table.
  ConvergenceCurve curve() const;
  /// The curve with its critical-batch-size fit for batch sizes outside the points.
  ConvergenceModel model() const;
};

} // namespace gpuscale::model
