#include "sim/model/MlperfScore.hpp"

#include <algorithm>
#include <numeric>

namespace gpuscale::model {

std::string to_string(MlperfRunStatus status)
{
  switch (status) {
    case MlperfRunStatus::Success: return "success";
    case MlperfRunStatus::Aborted: return "aborted";
    case MlperfRunStatus::NoRunStop: return "no_run_stop";
    case MlperfRunStatus::Unparsable: return "unparsable";
    case MlperfRunStatus::Incomplete: return "incomplete";
    case MlperfRunStatus::Inconsistent: return "inconsistent";
  }
  return "?";
}

std::optional<double> olympic_score_minutes(std::vector<double> valid_minutes, int invalid_runs)
{
  if (invalid_runs > 1)
    return std::nullopt;
  std::sort(valid_minutes.begin(), valid_minutes.end());
  // An invalid run sorts last (infinitely slow) and is the one dropped at the top.
  const std::size_t total = valid_minutes.size() + static_cast<std::size_t>(invalid_runs);
  if (total < 3 || valid_minutes.size() < 2)
    return std::nullopt;
  const auto first = valid_minutes.begin() + 1;
  const auto last = invalid_runs == 1 ? valid_minutes.end() : valid_minutes.end() - 1;
  const double sum = std::accumulate(first, last, 0.0);
  return sum / static_cast<double>(last - first);
}

void summarise_entry(MlperfEntry& entry)
{
  std::vector<double> valid_minutes;
  int invalid = 0;
  double samples = 0, epochs = 0, throughput = 0;
  entry.global_batch_size = 0;
  for (const auto& run : entry.runs) {
    if (entry.global_batch_size == 0 && run.global_batch_size > 0)
      entry.global_batch_size = run.global_batch_size;
    if (!run.valid()) {
      ++invalid;
      continue;
    }
    valid_minutes.push_back(run.run_minutes());
    samples += run.samples_to_converge;
    epochs += run.epochs_to_converge;
    const double seconds = run.run_minutes() * 60.0;
    if (seconds > 0)
      throughput += run.samples_processed / seconds;
  }
  entry.n_converged = static_cast<int>(valid_minutes.size());
  entry.score_minutes = olympic_score_minutes(valid_minutes, invalid);
  entry.median_run_minutes = 0;
  if (!valid_minutes.empty()) {
    const double n = static_cast<double>(valid_minutes.size());
    entry.mean_samples_to_converge = samples / n;
    entry.mean_epochs_to_converge = epochs / n;
    entry.mean_throughput_samples_per_s = throughput / n;
    std::sort(valid_minutes.begin(), valid_minutes.end());
    const std::size_t mid = valid_minutes.size() / 2;
    entry.median_run_minutes = valid_minutes.size() % 2 == 1 ? valid_minutes[mid]
                                                             : 0.5 * (valid_minutes[mid - 1] + valid_minutes[mid]);
  }
}

} // namespace gpuscale::model
