#pragma once
/// The baseline gpuscale is validated against: a two-parameter scaling regression a user could fit to
/// published MLPerf results without any simulator,
///
///   log t = a[benchmark, accelerator family] - s[benchmark] log n
///
/// t the MLPerf score in seconds, n the number of accelerators; fitted by ordinary least squares
/// (analysis/maths fit_linear, Eigen's column-pivoting QR) on a split's training results, one
/// independent fit per benchmark (no parameter spans two benchmarks).
///
/// What it cannot know, and the rules it then follows:
///   * a (benchmark, family) pair absent from the training results (a family left out, a family new
///     in the later round): a is the mean a of the same benchmark's trained families of the same
///     accelerator generation, else of all its trained families;
///   * a benchmark none of whose trained families ran at two accelerator counts: s is not
///     identified and is held at 1 (time inversely proportional to accelerators, the ideal scaling
///     a user assumes without data); a is then each family's mean of log t + log n;
///   * a benchmark absent from the training results: no prediction.

#include "analysis/calibration/CalibrationCase.hpp"
#include "analysis/calibration/ValidationSplit.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::analysis {

class ScalingRegression {
public:
  /// Where a prediction's intercept came from (the rules above).
  enum class InterceptSource { Fitted, GenerationMean, BenchmarkMean };
  struct Prediction {
    double time_s = 0; ///< predicted time to train, seconds
    InterceptSource source = InterceptSource::Fitted;
  };

  /// Fits on the cases with `train[i]` true (every case when `train` is empty).
  ScalingRegression(const std::vector<CalibrationCase>& cases, const std::vector<bool>& train = {});

  /// t for `c`'s benchmark, family (generation for the fallback) and accelerator count; nullopt when
  /// the benchmark has no training result.
  std::optional<Prediction> predict(const CalibrationCase& c) const;

  /// s[benchmark] (1 when not identified); nullopt for a benchmark without training results.
  std::optional<double> slope(model::Benchmark benchmark) const;
  /// Whether the benchmark's training results identify s (some family at two accelerator counts).
  bool slope_identified(model::Benchmark benchmark) const;
  /// a[benchmark, family] as fitted (log seconds); nullopt for a pair without training results.
  std::optional<double> intercept(model::Benchmark benchmark, const std::string& family) const;

private:
  struct FamilyIntercept {
    double log_s = 0;
    std::string generation;
  };
  struct BenchmarkFit {
    double slope = 1;
    bool slope_identified = false;
    std::map<std::string, FamilyIntercept> intercepts; ///< family -> a
  };
  std::map<model::Benchmark, BenchmarkFit> benchmarks_;
};

/// The regression's left-out predictions over `folds`: each fold's predicted cases by a regression
/// fitted on its training cases; nullopt for a case no fold predicts or whose benchmark its fold did
/// not train on.
std::vector<std::optional<ScalingRegression::Prediction>> regression_left_out(const std::vector<CalibrationCase>& cases,
                                                                            const std::vector<ValidationFold>& folds);

} // namespace gpuscale::analysis
