#include "analysis/calibration/BaselineComparison.hpp"

#include "analysis/calibration/AcceleratorBucket.hpp"

#include <cmath>

namespace gpuscale::analysis {
namespace {

/// Absolute percentage errors of one model, grouped as ModelErrors summarises them.
struct ErrorLists {
  std::vector<double> all;
  std::map<model::Benchmark, std::vector<double>> by_benchmark;
  std::map<std::string, std::vector<double>> by_bucket;
  std::map<std::string, std::vector<double>> by_family;

  void add(const CalibrationCase& c, double predicted_s)
  {
    const double ape = absolute_percentage_error(predicted_s, c.actual_s);
    all.push_back(ape);
    by_benchmark[c.benchmark].push_back(ape);
    by_bucket[bucket_label(c.accelerators)].push_back(ape);
    by_family[c.family].push_back(ape);
  }

  ModelErrors summarise() const
  {
    ModelErrors errors;
    errors.overall = summarise_errors(all);
    for (const auto& [name, apes] : by_benchmark)
      errors.by_benchmark[name] = summarise_errors(apes);
    for (const auto& [name, apes] : by_bucket)
      errors.by_bucket[name] = summarise_errors(apes);
    for (const auto& [name, apes] : by_family)
      errors.by_family[name] = summarise_errors(apes);
    return errors;
  }
};

bool predicted(double time_s) { return time_s > 0 && std::isfinite(time_s); }

} // namespace

ModeComparison compare_mode(ValidationMode mode, const std::vector<CalibrationCase>& cases,
                            const std::vector<ValidationFold>& folds, const std::vector<double>& gpuscale_s,
                            const std::vector<std::optional<ScalingRegression::Prediction>>& regression)
{
  using Source = ScalingRegression::InterceptSource;
  ModeComparison comparison;
  comparison.mode = mode;
  ErrorLists ours, theirs;
  for (const auto& fold : folds)
    for (std::size_t i : fold.predicted) {
      ++comparison.left_out;
      const bool by_gpuscale = predicted(gpuscale_s[i]);
      const bool by_regression = regression[i].has_value() && predicted(regression[i]->time_s);
      comparison.gpuscale_unpredicted += by_gpuscale ? 0 : 1;
      comparison.regression_unpredicted += by_regression ? 0 : 1;
      if (by_regression) {
        comparison.regression_generation_mean += regression[i]->source == Source::GenerationMean ? 1 : 0;
        comparison.regression_benchmark_mean += regression[i]->source == Source::BenchmarkMean ? 1 : 0;
      }
      if (!by_gpuscale || !by_regression)
        continue; // judged only where both predicted, so both are judged on the same results
      ++comparison.compared;
      ours.add(cases[i], gpuscale_s[i]);
      theirs.add(cases[i], regression[i]->time_s);
    }
  comparison.gpuscale = ours.summarise();
  comparison.regression = theirs.summarise();
  const double baseline = comparison.regression.overall.median_pct;
  comparison.beats_overall = comparison.compared > 0 && comparison.gpuscale.overall.median_pct < baseline;
  comparison.median_reduction_pct =
      baseline > 0 ? (baseline - comparison.gpuscale.overall.median_pct) / baseline * 100.0 : 0.0;
  for (const auto& [bucket, errors] : comparison.gpuscale.by_bucket)
    if (!(errors.median_pct < comparison.regression.by_bucket.at(bucket).median_pct))
      comparison.buckets_lost.push_back(bucket);
  for (const auto& [family, errors] : comparison.gpuscale.by_family)
    if (errors.median_pct > comparison.regression.by_family.at(family).median_pct)
      comparison.families_lost.push_back(family);
  return comparison;
}

std::vector<ModeComparison> compare_with_regression(const std::vector<CalibrationCase>& cases,
                                                    const LeftOutSeconds& gpuscale)
{
  std::vector<ModeComparison> comparisons;
  for (auto mode : all_validation_modes()) {
    const auto folds = validation_folds(mode, cases);
    comparisons.push_back(compare_mode(mode, cases, folds, gpuscale.at(mode), regression_left_out(cases, folds)));
  }
  return comparisons;
}

} // namespace gpuscale::analysis
