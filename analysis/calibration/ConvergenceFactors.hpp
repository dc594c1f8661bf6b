#pragma once
/// How far from its convergence table MLPerf submissions converge (model::ConvergenceFactor), measured
/// on calibration cases: the median of their scored samples over the table's, per benchmark and per
/// global batch size that at least model::kConvergenceFactorMinResults of them ran.
///
/// Why a median of the logs and not a fitted factor: each result's runs say how many samples they
/// trained, so the fit of the step model compares each result at its own samples
/// (ParameterSpace::ConvergenceBasis::Runs), and a prediction, which has no runs, needs what results
/// like it trained. At BERT's batch of 768 the NVIDIA-recipe results converge in 0.96 times the RCP
/// mean while results at batch sizes nobody else ran converge in up to 1.3 times it: per batch size
/// where enough results ran, per benchmark elsewhere. The median, because one recipe far from the
/// others (tinygrad's, DeepSpeed's) should not move what the rest predict.

#include "analysis/calibration/CalibrationCase.hpp"
#include "sim/model/Calibration.hpp"

#include <vector>

namespace gpuscale::analysis {

/// The factors of the cases `use` selects (all when empty) whose ratio is known
/// (CalibrationCase::has_convergence_ratio): one per benchmark (global_batch_size 0), then one per
/// batch size with enough results, sorted by benchmark and batch size.
std::vector<model::ConvergenceFactor> measure_convergence_factors(const std::vector<CalibrationCase>& cases,
                                                                  const std::vector<bool>& use = {});

} // namespace gpuscale::analysis
