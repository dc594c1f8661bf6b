#pragma once
/// The official MLPerf Training score of a set of runs and the entry summaries built on it.

#include "sim/model/MlperfRun.hpp"

#include <optional>
#include <utility>
#include <vector>

namespace gpuscale::model {

/// MLPerf's olympic score (mlperf_logging result_summarizer, _compute_strong_score_standalone):
/// sort the valid run times, count an invalid run as the slowest, drop the fastest and the slowest,
/// average the rest. `valid_s` are the valid runs' times, seconds. nullopt when more than one run is
/// invalid (the submission has no score) or fewer than three runs remain to sort.
std::optional<double> olympic_score_s(std::vector<double> valid_s, int invalid_runs);
/// Which runs that average takes: [first, last) of the valid runs sorted by time; nullopt where
/// olympic_score_s gives no score.
std::optional<std::pair<std::size_t, std::size_t>> olympic_kept_runs(std::size_t valid_runs, int invalid_runs);

/// One stretch of training in a log: from its start to its end, and the samples trained in it.
struct TrainingInterval {
  double start_ms = 0;
  double stop_ms = 0;
  double samples = 0;
};

/// The rate a run trains at once warmed up: the median samples per second of `intervals` (in log
/// order) after the first, which carries the run's warm-up (graph capture, autotuning, the first
/// reads of the data set: Llama 2's first block runs 6-20 s longer than its rate, docs/MLPERF_DATA.md,
/// "The data: import and scoring").
/// Intervals without positive samples and duration do not count. 0 when none is left.
double steady_training_rate(const std::vector<TrainingInterval>& intervals);

/// Fills the derived fields of `entry` from its runs (score, medians and means over valid runs,
/// the global batch size of the first run that logs one).
void summarise_entry(MlperfEntry& entry);

} // namespace gpuscale::model
