#pragma once
/// Turns a fit into a model::Calibration (parameters with uncertainties, batch-size rules) and
/// formats the parameter table the calibrate command prints.

#include "analysis/calibration/AcceleratorBucket.hpp"
#include "analysis/calibration/CalibrationFit.hpp"
#include "analysis/calibration/RunStartGaps.hpp"
#include "analysis/calibration/StepRateCheck.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/MlperfRun.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::app {

/// Accelerator-count buckets of validation's error tables (analysis's).
using analysis::bucket_label;

/// The parameters of `fit` in `space` as a calibration (summary and batch sizes left empty).
model::Calibration calibration_from_fit(const analysis::ParameterSpace& space,
                                        const analysis::CalibrationFitResult& fit);

/// Per benchmark and accelerator count present in `entries`, the global batch size submitters use: the
/// median of the results there, made non-decreasing in the count by isotonic median regression over
/// every result (analysis::fit_isotonic_median), so each value is a batch size that was used. The
/// points of Calibration::batch_size_for.
std::vector<model::BatchSizePoint> batch_size_rules(const std::vector<model::MlperfEntry>& entries);

/// The date of the latest MLPerf round among `entries` (model::mlperf_round_date); nullopt when none
/// names a round. What a calibration of undated results records as its software_reference_date.
std::optional<model::SoftwareDate> latest_round_date(const std::vector<model::MlperfEntry>& entries);

/// "v3.0-v5.0": the earliest and the latest round among `entries` (analysis::round_before); one
/// round alone when they are the same, "" when there is none.
std::string round_span(const std::vector<model::MlperfEntry>& entries);

/// Writes `calibration` to `path` (format_calibration) through a temporary file renamed over it, so a
/// failure never leaves half a file.
void write_calibration_file(const std::string& path, const model::Calibration& calibration);

/// One line per parameter: name, value, 1-sigma, results, identified.
std::string format_parameter_table(const model::Calibration& calibration);

/// The logged start of the runs against each convergence table's run-start overhead (`table_s` by
/// benchmark; a benchmark without one is left out): one line per benchmark, flagged where the table's
/// is below the logged start by more than analysis::kRunStartToleranceS.
std::string format_run_start_check(const std::vector<analysis::RunStartGap>& gaps,
                                   const std::map<model::Benchmark, double>& table_s);

/// The step-rate check (analysis::check_step_rates): per benchmark, on one node and on several, the
/// median signed and absolute error of the simulated training rate against the logged one; per
/// benchmark the one-node median of each accelerator; then every result further off than
/// analysis::kStepRateListPct.
std::string format_step_rate_check(const analysis::StepRateCheck& check);

/// Draws the calibration's simulation progress on stderr ("simulating 12/229"), for mlperf::CaseOptions::progress.
void print_case_progress(const char* what, std::size_t done, std::size_t total);

} // namespace gpuscale::app
