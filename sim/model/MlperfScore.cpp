#include "sim/model/MlperfScore.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace gpuscale::model {
namespace {

/// The middle value, or the mean of the two middle ones; `values` not empty.
double median_of(std::vector<double> values)
{
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

} // namespace

double steady_training_rate(const std::vector<TrainingInterval>& intervals)
{
  std::vector<double> rates;
  for (std::size_t i = 1; i < intervals.size(); ++i) {
    const double seconds = (intervals[i].stop_ms - intervals[i].start_ms) / 1000.0;
    if (seconds > 0 && intervals[i].samples > 0)
      rates.push_back(intervals[i].samples / seconds);
  }
  return rates.empty() ? 0.0 : median_of(rates);
}

std::string to_string(MlperfRunStatus status)
{
  switch (status) {
    case MlperfRunStatus::Success: return "success";
    case MlperfRunStatus::Aborted: return "aborted";
    case MlperfRunStatus::NoRunStop: return "no_run_stop";
    case MlperfRunStatus::Unparsable: return "unparsable";
    case MlperfRunStatus::Incomplete: return "incomplete";
    case MlperfRunStatus::Inconsistent: return "inconsistent";
    case MlperfRunStatus::Noncompliant: return "noncompliant";
    case MlperfRunStatus::Implausible: return "implausible";
  }
  return "?";
}

std::optional<std::pair<std::size_t, std::size_t>> olympic_kept_runs(std::size_t valid_runs, int invalid_runs)
{
  // An invalid run sorts last (infinitely slow) and is the one dropped at the top.
  const std::size_t total = valid_runs + static_cast<std::size_t>(std::max(invalid_runs, 0));
  if (invalid_runs > 1 || total < 3 || valid_runs < 2)
    return std::nullopt;
  return std::make_pair(std::size_t{1}, invalid_runs == 1 ? valid_runs : valid_runs - 1);
}

std::optional<double> olympic_score_s(std::vector<double> valid_s, int invalid_runs)
{
  const auto kept = olympic_kept_runs(valid_s.size(), invalid_runs);
  if (!kept)
    return std::nullopt;
  std::sort(valid_s.begin(), valid_s.end());
  const auto [first, last] = *kept;
  const double sum = std::accumulate(valid_s.begin() + first, valid_s.begin() + last, 0.0);
  return sum / static_cast<double>(last - first);
}

void summarise_entry(MlperfEntry& entry)
{
  std::vector<double> valid_s, start_gaps_s, training_rates;
  std::vector<std::pair<double, double>> valid_s_samples; // (seconds, samples) of each valid run
  int invalid = 0;
  double samples = 0, epochs = 0, throughput = 0;
  entry.global_batch_size = 0;
  entry.gradient_accumulation_steps = 0;
  for (const auto& run : entry.runs) {
    if (entry.global_batch_size == 0 && run.global_batch_size > 0)
      entry.global_batch_size = run.global_batch_size;
    if (entry.gradient_accumulation_steps == 0 && run.gradient_accumulation_steps > 0)
      entry.gradient_accumulation_steps = run.gradient_accumulation_steps;
    if (!run.valid()) {
      ++invalid;
      continue;
    }
    valid_s.push_back(run.run_s());
    if (const auto gap = run.start_gap_s())
      start_gaps_s.push_back(*gap);
    if (run.training_rate_samples_per_s > 0)
      training_rates.push_back(run.training_rate_samples_per_s);
    valid_s_samples.emplace_back(run.run_s(), run.samples_to_converge);
    samples += run.samples_to_converge;
    epochs += run.epochs_to_converge;
    if (run.run_s() > 0)
      throughput += run.samples_processed / run.run_s();
  }
  entry.n_converged = static_cast<int>(valid_s.size());
  entry.score_s = olympic_score_s(valid_s, invalid);
  entry.median_run_s = 0;
  entry.olympic_samples_to_converge = 0;
  if (const auto kept = olympic_kept_runs(valid_s_samples.size(), invalid)) { // the runs the score averages
    std::sort(valid_s_samples.begin(), valid_s_samples.end());
    const auto [first, last] = *kept;
    double sum = 0;
    bool all_logged = true;
    for (std::size_t k = first; k < last; ++k) {
      sum += valid_s_samples[k].second;
      all_logged = all_logged && valid_s_samples[k].second > 0;
    }
    if (all_logged)
      entry.olympic_samples_to_converge = sum / static_cast<double>(last - first);
  }
  if (!valid_s.empty()) {
    const double n = static_cast<double>(valid_s.size());
    entry.mean_samples_to_converge = samples / n;
    entry.mean_epochs_to_converge = epochs / n;
    entry.mean_throughput_samples_per_s = throughput / n;
    entry.median_run_s = median_of(valid_s);
  }
  entry.median_start_gap_s.reset();
  if (!start_gaps_s.empty())
    entry.median_start_gap_s = median_of(start_gaps_s);
  entry.median_training_rate_samples_per_s.reset();
  if (!training_rates.empty())
    entry.median_training_rate_samples_per_s = median_of(training_rates);
}

} // namespace gpuscale::model
