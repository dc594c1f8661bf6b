#pragma once
/// What gpuscale reads from MLPerf Training result logs (MLLOG lines): one run per result file, and
/// one entry per (round, submitter, system, benchmark) with its official score.

#include "sim/model/Benchmark.hpp"
#include "sim/model/MlperfSystem.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpuscale::model {

/// Why a run does not count as a converged, compliant run.
enum class MlperfRunStatus {
  Success,        ///< run_stop with status success, log complete
  Aborted,        ///< run_stop with another status (target not reached)
  NoRunStop,      ///< the log ends without run_stop
  Unparsable,     ///< a ":::MLLOG" line is not valid JSON or lacks time_ms/key
  Incomplete,     ///< required keys missing (init_start, run_start, global_batch_size, evaluations)
  Inconsistent,   ///< its submission_* keys disagree with the other runs of the entry or with its folder
  Noncompliant,   ///< breaks a rule the MLPerf compliance checker enforces (initialisation longer than allowed)
  Implausible,    ///< converged faster than any system can train the samples it claims
};
std::string to_string(MlperfRunStatus status);

/// One result file.
struct MlperfRun {
  std::string file;
  MlperfRunStatus status = MlperfRunStatus::Success;
  std::string problem; ///< "file:line: message" for every status but Success
  double run_start_ms = 0;
  double run_stop_ms = 0;
  /// time_ms of the first block_start or epoch_start: when training begins; 0 when neither is logged.
  double first_block_ms = 0;
  int global_batch_size = 0; ///< 0 when not logged
  /// Micro-batches accumulated per optimizer step (gradient_accumulation_steps); 0 when not logged.
  int gradient_accumulation_steps = 0;
  std::string submission_org;
  std::string submission_platform;
  std::string submission_benchmark;
  /// Samples (bert, llama2_70b_lora, stable_diffusion) or epochs x training-set size (resnet,
  /// retinanet) at convergence, per mlperf_logging's rcp_checker; 0 when the log does not show it.
  double samples_to_converge = 0;
  double epochs_to_converge = 0; ///< resnet, retinanet only
  double samples_processed = 0;  ///< as samples_to_converge, at the last evaluation
  double seed = 0;
  /// Samples per second the run trains at once warmed up, from its logged training stretches (which
  /// ones: config/MlperfLogReader.cpp; their rate: steady_training_rate in MlperfScore.hpp); 0 when
  /// the log does not show it.
  /// What the log measures of the step alone: no evaluation, start, warm-up or convergence in it.
  double training_rate_samples_per_s = 0;

  bool valid() const { return status == MlperfRunStatus::Success; }
  /// Seconds from run_start to run_stop.
  double run_s() const { return (run_stop_ms - run_start_ms) / 1000.0; }
  /// Seconds from run_start to the first block_start / epoch_start: the timed start before training
  /// (data pipelines, graph capture the submission leaves inside the run); absent when not logged or
  /// logged before run_start.
  std::optional<double> start_gap_s() const
  {
    if (first_block_ms <= 0 || first_block_ms < run_start_ms)
      return std::nullopt;
    return (first_block_ms - run_start_ms) / 1000.0;
  }
};

/// "round/submitter/system/benchmark": how reports, tables and the calibration name one entry.
inline std::string mlperf_entry_key(const std::string& round, const std::string& submitter, const std::string& system,
                                    const std::string& benchmark)
{
  return round + "/" + submitter + "/" + system + "/" + benchmark;
}

/// One (round, submitter, system, benchmark) with its system description and runs.
struct MlperfEntry {
  std::string round;     ///< e.g. v4.1
  std::string submitter; ///< folder name
  std::string system;    ///< folder name
  Benchmark benchmark = Benchmark::Bert; ///< from the folder name (ssd -> retinanet)
  MlperfSystem description;
  std::vector<MlperfRun> runs;

  // Derived by summarise_entry (MlperfScore.hpp).
  int global_batch_size = 0;
  int gradient_accumulation_steps = 0; ///< as logged by its runs; 0 when none logs it
  int n_converged = 0;
  std::optional<double> score_s; ///< olympic mean, seconds; absent with more than one invalid run or < 3 runs
  /// What MLCommons multiplies score_s by when the runs converged in fewer samples than the RCPs
  /// allow (scaling.json; config/MlperfScalingReader.hpp); 1 when none is given.
  double rcp_scaling_factor = 1.0;
  std::string rcp_scaling_source; ///< the file the factor was read from; empty when none
  /// The published score: score_s x rcp_scaling_factor (what calibration and validation compare with).
  std::optional<double> published_score_s() const
  {
    return score_s ? std::optional<double>(*score_s * rcp_scaling_factor) : std::nullopt;
  }
  double median_run_s = 0;       ///< over valid runs, seconds
  /// Median over the valid runs that log it of MlperfRun::start_gap_s; absent when none does.
  std::optional<double> median_start_gap_s;
  /// Median over the valid runs that show it of MlperfRun::training_rate_samples_per_s; absent when
  /// none does.
  std::optional<double> median_training_rate_samples_per_s;
  double mean_samples_to_converge = 0; ///< over valid runs
  /// Mean samples (or epochs x training-set size) to converge of the runs the olympic score averages
  /// (valid runs by time, fastest and slowest dropped): what the score's runs trained. 0 without a
  /// score or when one of those runs does not log its samples.
  double olympic_samples_to_converge = 0;
  double mean_epochs_to_converge = 0;  ///< over valid runs; resnet, retinanet
  double mean_throughput_samples_per_s = 0; ///< samples processed / run time, mean over valid runs

  std::string key() const { return mlperf_entry_key(round, submitter, system, to_string(benchmark)); }
};

} // namespace gpuscale::model
