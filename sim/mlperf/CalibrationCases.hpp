#pragma once
/// The MLPerf results a calibration uses, each simulated once at reference efficiencies and turned
/// into an analysis::CalibrationCase (docs/MLPERF_DATA.md, "Which results").
///
/// Taken: closed division, an olympic score, accelerators in the catalog, a layout that fits, and
/// not a repeat of runs already taken (same run_start times under another round or system name).
/// Everything else is listed in `excluded` with the reason.

#include "analysis/calibration/CalibrationCase.hpp"
#include "sim/mlperf/MlperfScenarioBuilder.hpp"
#include "sim/results/RunRecord.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/MlperfRun.hpp"
#include "sim/model/Scenario.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::mlperf {

/// Called after each simulation of a batch: what is being simulated, how many are done, of how many.
using CaseProgress = std::function<void(const char* what, std::size_t done, std::size_t total)>;

/// Where a result's software date (CalibrationCase::software_year) comes from.
enum class SoftwareDateSource {
  FirstRun, ///< the UTC day its earliest run started (MLLOG run_start): when its software actually ran
  Round,    ///< its round's date (model::mlperf_round_date)
  None,     ///< undated: no software maturity is fitted
};
/// "first-run", "round", "none".
std::string to_string(SoftwareDateSource source);
/// Every source, in the order above.
std::vector<SoftwareDateSource> all_software_date_sources();

struct CaseOptions {
  int workers = 2;
  int max_accelerators = 0; ///< 0: no limit; else results on more accelerators are left out
  CaseProgress progress;    ///< empty: silent
  /// Dated by the first run: software maturity is fitted (docs/CALIBRATION.md).
  SoftwareDateSource software_date = SoftwareDateSource::FirstRun;
};

struct CaseSet {
  std::vector<analysis::CalibrationCase> cases;
  std::vector<model::ResolvedScenario> scenarios; ///< parallel to cases, at the reference efficiencies
  std::vector<std::string> excluded;              ///< "round/submitter/system/benchmark: reason"
  std::vector<model::MlperfEntry> entries;        ///< closed-division, scored, not repeated (batch-size rules)
  double simulation_wall_s = 0;                   ///< summed over simulations
  double slowest_simulation_s = 0;
  std::string slowest_case;
};

/// The simulated part of a calibration case (step decomposition, reference efficiencies, steps
/// with evaluation counted in steps) of `scenario` simulated into `r`; identity and the actual score
/// are left empty. `fixed_s` is the run's whole fixed overhead: a caller whose scenario already holds
/// a calibrated overhead subtracts it. The row's minutes become the case's seconds.
analysis::CalibrationCase simulated_case(const MlperfScenario& scenario, const results::RunRecord& r);

/// Imports `mlperf_dir`, builds and simulates every usable result at `reference`'s efficiencies
/// (no calibrated overhead). Throws ConfigError if the folder cannot be read at all.
CaseSet prepare_calibration_cases(const std::string& mlperf_dir, const model::Calibration& reference,
                                  const CaseOptions& options);

/// Where link contention matters: for each case, its SimGrid reference step over the analytical
/// executor's step on the same scenario, minus 1 (NaN where that run failed). Within
/// kUncontendedExcess no two transfers shared a link at once, and the analytical executor gives the
/// case's simulation.
inline constexpr double kUncontendedExcess = 1e-6;
std::vector<double> contention_excess(const CaseSet& set, int workers, const CaseProgress& progress);

/// Re-simulates `scenarios` with the efficiencies given per scenario; seconds to train, NaN where a
/// simulation failed.
std::vector<double> simulate_s(std::vector<model::ResolvedScenario> scenarios,
                               const std::vector<model::Efficiency>& efficiencies, int workers,
                               const CaseProgress& progress);

} // namespace gpuscale::mlperf
