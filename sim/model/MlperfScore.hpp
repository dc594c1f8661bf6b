#pragma once
/// The official MLPerf Training score of a set of runs and the entry summaries built on it.

#include "sim/model/MlperfRun.hpp"

#include <optional>
#include <vector>

namespace gpuscale::model {

/// MLPerf's olympic score (mlperf_logging result_summarizer, _compute_strong_score_standalone):
/// sort the valid run times, count an invalid run as the slowest, drop the fastest and the slowest,
/// average the rest. `valid_s` are the valid runs' times, seconds. nullopt when more than one run is
/// invalid (the submission has no score) or fewer than three runs remain to sort.
std::optional<double> olympic_score_s(std::vector<double> valid_s, int invalid_runs);

/// Fills the derived fields of `entry` from its runs (score, medians and means over valid runs,
/// the global batch size of the first run that logs one).
void summarise_entry(MlperfEntry& entry);

} // namespace gpuscale::model
