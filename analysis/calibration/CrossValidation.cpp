#include "analysis/calibration/CrossValidation.hpp"

#include "analysis/calibration/CalibrationFit.hpp"
#include "sim/model/SoftwareMaturity.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <map>
#include <numeric>
#include <thread>

namespace gpuscale::analysis {
double interpolated_quantile(const std::vector<double>& sorted, double q)
{
  if (sorted.empty())
    return 0;
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const auto above = std::min(sorted.size() - 1, below + 1);
  return sorted[below] + (position - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

namespace {

/// The predictions of `fold`'s left-out cases (in fold.predicted's order) by the fit on its training
/// cases; empty when it has none of either.
std::vector<double> refit_fold(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                               const ValidationFold& fold, const std::vector<double>& start)
{
  const auto& use = fold.train;
  if (fold.predicted.empty() || std::none_of(use.begin(), use.end(), [](bool u) { return u; }))
    return {};
  // Parameters only the left-out cases inform get no data: they stay at the space's neutral start
  // (a generation factor at the reference generation's 0.8, model::kReferenceComputeFraction: the
  // catalog datasheet at Hopper's fraction), not at the full fit's value.
  std::vector<double> warm = start;
  // The reference date as the training cases alone decide it.
  const ParameterSpace fold_space =
      space.for_training(cases, use).with_convergence_basis(space.convergence_basis(), cases, use);
  const auto neutral = fold_space.start();
  const auto repeats = fold_space.repeat_groups(cases, use); // what measures maturity
  for (std::size_t j = 0; j < fold_space.size(); ++j) {
    const auto& p = fold_space.parameters()[j];
    bool informed = false;
    for (std::size_t i = 0; i < cases.size() && !informed; ++i) {
      if (!use[i])
        continue;
      const auto& c = cases[i];
      switch (p.group) {
        case ParameterSpace::Group::Compute:
        case ParameterSpace::Group::Memory:
        case ParameterSpace::Group::Overhead:
        case ParameterSpace::Group::StepOverhead: informed = p.benchmark == c.benchmark; break;
        case ParameterSpace::Group::Generation: informed = c.generation == p.label; break;
        case ParameterSpace::Group::Network: informed = c.scale_up_link == p.label; break;
        case ParameterSpace::Group::Maturity: informed = false; break; // by the repeats, below
      }
    }
    if (p.group == ParameterSpace::Group::Maturity)
      for (const auto& group : repeats) // the gap by every benchmark's repeats, at launch by its own
        informed = informed || !p.benchmark || p.benchmark == cases[group.front()].benchmark;
    if (!informed)
      warm[j] = neutral[j];
  }
  const auto fit = fit_calibration(fold_space, cases, use, warm, false);
  std::vector<double> predicted;
  for (std::size_t i : fold.predicted)
    predicted.push_back(fold_space.predict_s(cases[i], fit.x));
  return predicted;
}

} // namespace

std::vector<double> refit_folds(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                const std::vector<ValidationFold>& folds, const std::vector<double>& start,
                                unsigned threads)
{
  // The folds' fits are independent (each its own optimiser and parameter space, nothing shared is
  // written): they run on `threads` threads, and each fold's result lands in its own slot, so the
  // predictions are the same whatever the number of threads or the order they finish in.
  std::vector<std::vector<double>> by_fold(folds.size());
  std::vector<std::exception_ptr> failures(folds.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t k = next++; k < folds.size(); k = next++) {
      try {
        by_fold[k] = refit_fold(space, cases, folds[k], start);
      } catch (...) {
        failures[k] = std::current_exception();
      }
    }
  };
  const std::size_t workers =
      std::min<std::size_t>(folds.size(), std::max(1u, threads > 0 ? threads : std::thread::hardware_concurrency()));
  std::vector<std::thread> helpers;
  for (std::size_t t = 1; t < workers; ++t)
    helpers.emplace_back(work);
  work();
  for (auto& helper : helpers)
    helper.join();
  for (const auto& failure : failures)
    if (failure)
      std::rethrow_exception(failure);
  std::vector<double> predicted(cases.size(), 0.0);
  for (std::size_t k = 0; k < folds.size(); ++k)
    for (std::size_t j = 0; j < by_fold[k].size(); ++j)
      predicted[folds[k].predicted[j]] = by_fold[k][j];
  return predicted;
}

std::vector<double> leave_group_out(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                    const std::function<std::string(const CalibrationCase&)>& group_of,
                                    const std::vector<double>& start)
{
  return refit_folds(space, cases, group_folds(cases, group_of), start);
}

std::vector<double> left_out_s(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                     ValidationMode mode, const std::vector<double>& start, unsigned threads)
{
  return refit_folds(space, cases, validation_folds(mode, cases), start, threads);
}

LeftOutSeconds left_out_s_by_mode(const ParameterSpace& space, const std::vector<CalibrationCase>& cases,
                                        const std::vector<double>& start, unsigned threads)
{
  LeftOutSeconds predicted_s;
  for (auto mode : all_validation_modes())
    predicted_s[mode] = left_out_s(space, cases, mode, start, threads);
  return predicted_s;
}

double absolute_percentage_error(double predicted, double actual)
{
  return std::abs(predicted - actual) / actual * 100.0;
}

ErrorSummary summarise_errors(std::vector<double> ape_pct)
{
  ErrorSummary summary;
  summary.count = static_cast<int>(ape_pct.size());
  if (ape_pct.empty())
    return summary;
  std::sort(ape_pct.begin(), ape_pct.end());
  summary.median_pct = interpolated_quantile(ape_pct, 0.5);
  summary.p90_pct = interpolated_quantile(ape_pct, 0.9);
  summary.mean_pct = std::accumulate(ape_pct.begin(), ape_pct.end(), 0.0) / static_cast<double>(ape_pct.size());
  return summary;
}

} // namespace gpuscale::analysis
