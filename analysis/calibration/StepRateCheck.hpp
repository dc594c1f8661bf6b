#pragma once
/// The simulated step against the rate the MLPerf logs show each result training at once warmed up
/// (MlperfEntry::median_training_rate_samples_per_s: between evaluations, without the start, the
/// warm-up and the evaluations). Time to train mixes the step with convergence, evaluations and per-run
/// overheads, which the fit can trade against each other; the logged rate measures the step alone, so
/// this checks the step model (kernels, memory, communication) by itself, at the calibration the
/// reference simulations ran with. `gpuscale validate` prints it.

#include "analysis/calibration/CalibrationCase.hpp"

#include <string>
#include <vector>

namespace gpuscale::analysis {

/// One result with a logged rate.
struct StepRateResult {
  std::string key;    ///< round/submitter/system/benchmark
  std::string family; ///< catalog accelerator
  model::Benchmark benchmark = model::Benchmark::Bert;
  int accelerators = 0;
  int nodes = 0;
  double logged_samples_per_s = 0;
  double simulated_samples_per_s = 0; ///< global batch over the simulated step (host limit included)
  double error_pct = 0;               ///< simulated / logged - 1, percent: > 0 the model steps faster
};

/// The results of one benchmark on one node, or on several.
struct StepRateGroup {
  model::Benchmark benchmark = model::Benchmark::Bert;
  bool several_nodes = false;
  int results = 0;
  double median_error_pct = 0;
  double median_abs_error_pct = 0;
};

/// The one-node results of one benchmark on one accelerator: where the step model is off for a part
/// (an H200 against its H100) rather than for a scale.
struct StepRateFamily {
  model::Benchmark benchmark = model::Benchmark::Bert;
  std::string family;
  int results = 0;
  double median_error_pct = 0;
};

struct StepRateCheck {
  std::vector<StepRateGroup> groups;     ///< by benchmark, one node before several
  std::vector<StepRateFamily> families;  ///< by benchmark, then accelerator; one-node results only
  std::vector<StepRateResult> results;   ///< every case with a logged rate and a simulated step, by error
};

/// Compares every case that has both a logged rate and a simulated step; the others are skipped.
StepRateCheck check_step_rates(const std::vector<CalibrationCase>& cases);

/// Results further off than this are listed by `validate`.
inline constexpr double kStepRateListPct = 15.0;

} // namespace gpuscale::analysis
