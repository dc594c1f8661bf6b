#include "analysis/calibration/ScalingRegression.hpp"

#include "analysis/maths/LinearRegression.hpp"

#include <cmath>
#include <set>

namespace gpuscale::analysis {
namespace {

/// One benchmark's training results, by family.
struct FamilyResults {
  std::string generation;
  std::vector<double> log_accelerators, log_s;
};

double mean_of(const std::vector<double>& values)
{
  double sum = 0;
  for (double v : values)
    sum += v;
  return sum / static_cast<double>(values.size());
}

/// s is identified when log n varies within some family: otherwise the column -log n lies in the
/// span of the family indicators and least squares cannot tell s from the intercepts.
bool varies_within_a_family(const std::map<std::string, FamilyResults>& families)
{
  for (const auto& [family, results] : families)
    if (std::set<double>(results.log_accelerators.begin(), results.log_accelerators.end()).size() > 1)
      return true;
  return false;
}

} // namespace

ScalingRegression::ScalingRegression(const std::vector<CalibrationCase>& cases, const std::vector<bool>& train)
{
  std::map<model::Benchmark, std::map<std::string, FamilyResults>> by_benchmark;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!train.empty() && !train[i])
      continue;
    const auto& c = cases[i];
    auto& results = by_benchmark[c.benchmark][c.family];
    results.generation = c.generation;
    results.log_accelerators.push_back(std::log(static_cast<double>(c.accelerators)));
    results.log_s.push_back(std::log(c.actual_s));
  }
  for (const auto& [benchmark, families] : by_benchmark) {
    BenchmarkFit& fit = benchmarks_[benchmark];
    fit.slope_identified = varies_within_a_family(families);
    if (!fit.slope_identified) {
      // s held at 1: a = mean of log t + log n, the least-squares intercept at that slope.
      for (const auto& [family, results] : families) {
        std::vector<double> offsets;
        for (std::size_t k = 0; k < results.log_s.size(); ++k)
          offsets.push_back(results.log_s[k] + results.log_accelerators[k]);
        fit.intercepts[family] = {mean_of(offsets), results.generation};
      }
      continue;
    }
    // Regressors: one indicator per family (a), then -log n (s).
    std::vector<std::vector<double>> rows;
    std::vector<double> y;
    const std::size_t columns = families.size() + 1;
    std::size_t column = 0;
    for (const auto& [family, results] : families) {
      for (std::size_t k = 0; k < results.log_s.size(); ++k) {
        std::vector<double> row(columns, 0.0);
        row[column] = 1.0;
        row.back() = -results.log_accelerators[k];
        rows.push_back(std::move(row));
        y.push_back(results.log_s[k]);
      }
      ++column;
    }
    const LinearFit ols = fit_linear(rows, y);
    column = 0;
    for (const auto& [family, results] : families)
      fit.intercepts[family] = {ols.coefficients[column++], results.generation};
    fit.slope = ols.coefficients.back();
  }
}

std::optional<ScalingRegression::Prediction> ScalingRegression::predict(const CalibrationCase& c) const
{
  const auto benchmark = benchmarks_.find(c.benchmark);
  if (benchmark == benchmarks_.end())
    return std::nullopt;
  const BenchmarkFit& fit = benchmark->second;
  Prediction prediction;
  double a = 0;
  if (const auto own = fit.intercepts.find(c.family); own != fit.intercepts.end()) {
    a = own->second.log_s;
  } else {
    std::vector<double> same_generation, all;
    for (const auto& [family, intercept] : fit.intercepts) {
      all.push_back(intercept.log_s);
      if (intercept.generation == c.generation)
        same_generation.push_back(intercept.log_s);
    }
    prediction.source = same_generation.empty() ? InterceptSource::BenchmarkMean : InterceptSource::GenerationMean;
    a = mean_of(same_generation.empty() ? all : same_generation);
  }
  prediction.time_s = std::exp(a - fit.slope * std::log(static_cast<double>(c.accelerators)));
  return prediction;
}

std::optional<double> ScalingRegression::slope(model::Benchmark benchmark) const
{
  const auto it = benchmarks_.find(benchmark);
  return it == benchmarks_.end() ? std::nullopt : std::optional<double>(it->second.slope);
}

bool ScalingRegression::slope_identified(model::Benchmark benchmark) const
{
  const auto it = benchmarks_.find(benchmark);
  return it != benchmarks_.end() && it->second.slope_identified;
}

std::optional<double> ScalingRegression::intercept(model::Benchmark benchmark, const std::string& family) const
{
  const auto it = benchmarks_.find(benchmark);
  if (it == benchmarks_.end())
    return std::nullopt;
  const auto own = it->second.intercepts.find(family);
  return own == it->second.intercepts.end() ? std::nullopt : std::optional<double>(own->second.log_s);
}

std::vector<std::optional<ScalingRegression::Prediction>> regression_left_out(const std::vector<CalibrationCase>& cases,
                                                                            const std::vector<ValidationFold>& folds)
{
  std::vector<std::optional<ScalingRegression::Prediction>> predicted(cases.size());
  for (const auto& fold : folds) {
    if (fold.predicted.empty())
      continue;
    const ScalingRegression regression(cases, fold.train);
    for (std::size_t i : fold.predicted)
      predicted[i] = regression.predict(cases[i]);
  }
  return predicted;
}

} // namespace gpuscale::analysis
