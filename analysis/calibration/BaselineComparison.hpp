#pragma once
/// gpuscale's left-out predictions against the baseline regression's (ScalingRegression.hpp) in each
/// validation mode (ValidationSplit.hpp): both models fitted on the same training results and judged
/// on the same left-out ones, by absolute percentage error overall, per benchmark, per accelerator
/// bucket (AcceleratorBucket.hpp) and per accelerator family.

#include "analysis/calibration/CalibrationCase.hpp"
#include "analysis/calibration/CrossValidation.hpp"
#include "analysis/calibration/ScalingRegression.hpp"
#include "analysis/calibration/ValidationSplit.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

/// The bar for a simulator worth its cost: a median error at least this much lower than the
/// regression's overall, in percent of the regression's (and lower in every bucket).
inline constexpr double kBaselineMedianReductionTargetPct = 25.0;

/// One model's absolute percentage errors in one mode.
struct ModelErrors {
  ErrorSummary overall;
  std::map<model::Benchmark, ErrorSummary> by_benchmark;
  std::map<std::string, ErrorSummary> by_bucket; ///< bucket_label -> errors
  std::map<std::string, ErrorSummary> by_family; ///< catalog accelerator family -> errors
};

struct ModeComparison {
  ValidationMode mode = ValidationMode::LeaveOneSystemOut;
  int left_out = 0;                   ///< results the mode predicts
  int compared = 0;                   ///< of them, predicted by both models: the errors below are over these
  int gpuscale_unpredicted = 0;       ///< left out of a refit that had no training result
  int regression_unpredicted = 0;     ///< benchmark absent from the training split
  int regression_generation_mean = 0; ///< predicted with the generation's mean a (family not trained)
  int regression_benchmark_mean = 0;  ///< predicted with the benchmark's mean a (generation not trained)
  ModelErrors gpuscale, regression;
  bool beats_overall = false;             ///< gpuscale's median APE below the regression's
  std::vector<std::string> buckets_lost;  ///< buckets where gpuscale's median APE is not below
  std::vector<std::string> families_lost; ///< families where gpuscale's median APE is above (reported, not the target)
  double median_reduction_pct = 0;        ///< (regression median - gpuscale median) / regression median x 100

  bool beats_in_every_bucket() const { return buckets_lost.empty(); }
  /// Beats it overall and in every bucket, by at least kBaselineMedianReductionTargetPct in median.
  bool meets_target() const
  {
    return beats_overall && beats_in_every_bucket() && median_reduction_pct >= kBaselineMedianReductionTargetPct;
  }
};

/// The comparison in `mode` over `folds` (validation_folds(mode, cases)): `gpuscale_s` gpuscale's
/// left-out predictions (0: none), `regression` the regression's over the same folds.
ModeComparison compare_mode(ValidationMode mode, const std::vector<CalibrationCase>& cases,
                            const std::vector<ValidationFold>& folds, const std::vector<double>& gpuscale_s,
                            const std::vector<std::optional<ScalingRegression::Prediction>>& regression);

/// compare_mode for every mode: gpuscale's predictions as given (left_out_s_by_mode), the
/// regression fitted here on the same folds.
std::vector<ModeComparison> compare_with_regression(const std::vector<CalibrationCase>& cases,
                                                    const LeftOutSeconds& gpuscale);

} // namespace gpuscale::analysis
