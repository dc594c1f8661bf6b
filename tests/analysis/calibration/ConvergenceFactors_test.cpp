#include "analysis/calibration/CalibrationFit.hpp"
#include "analysis/calibration/CalibrationSurrogate.hpp"
#include "analysis/calibration/ConvergenceFactors.hpp"
#include "sim/model/Calibration.hpp"
#include "tests/support/ToyCalibrationCase.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gpuscale;
using test::toy_case;

namespace {

/// A toy case at `batch` whose runs trained `ratio` times its table's samples.
analysis::CalibrationCase converged_at(const std::string& benchmark, int batch, double ratio, const std::string& system)
{
  auto c = toy_case(benchmark, "hopper", 1.0, system);
  c.global_batch_size = batch;
  c.table_samples = 1e6;
  c.scored_samples = ratio * 1e6;
  return c;
}

} // namespace

TEST_CASE("analysis::measure_convergence_factors: medians per benchmark, and per batch size run by three or more",
          "[analysis]")
{
  std::vector<analysis::CalibrationCase> cases = {
      converged_at("bert", 768, 0.95, "a"), converged_at("bert", 768, 0.96, "b"), converged_at("bert", 768, 0.97, "c"),
      converged_at("bert", 3072, 1.3, "d"), converged_at("bert", 4608, 1.06, "e"),
      converged_at("resnet", 3200, 1.0, "f")};
  auto unknown = converged_at("resnet", 3200, 1.5, "g");
  unknown.scored_samples = 0; // its logs give no samples: no ratio, not counted
  cases.push_back(unknown);
  const auto factors = analysis::measure_convergence_factors(cases);
  // bert: median of the five; 768 of its own three; 3072 and 4608 have too few; resnet: the one known.
  REQUIRE(factors.size() == 3);
  CHECK(model::convergence_factor_in(factors, model::Benchmark::Bert, 768) == Approx(0.96));
  CHECK(model::convergence_factor_in(factors, model::Benchmark::Bert, 3072) == Approx(0.97));
  CHECK(model::convergence_factor_in(factors, model::Benchmark::Bert, 256) == Approx(0.97));
  CHECK(model::convergence_factor_in(factors, model::Benchmark::Resnet, 3200) == Approx(1.0));
  CHECK(model::convergence_factor_in(factors, model::Benchmark::StableDiffusion, 512) == 1.0); // none: the table
  CHECK(factors[1].results == 3);
  // Leaving results out (a validation fold) measures on the rest: without a, b and c, 768 has no entry.
  const std::vector<bool> use = {false, false, false, true, true, true, true};
  const auto fold = analysis::measure_convergence_factors(cases, use);
  CHECK(model::convergence_factor_in(fold, model::Benchmark::Bert, 768) == Approx(std::sqrt(1.3 * 1.06)));
}

TEST_CASE("analysis::fit_calibration at the runs' own samples recovers a step model that convergence noise hides",
          "[analysis]")
{
  // Noiseless steps; each result's runs trained a different number of samples (0.9-1.25 times the
  // table), as MLPerf runs do. Fitted at the table's samples, that noise lands in the efficiencies;
  // fitted at each result's own, the step model comes back exactly, and a prediction converges at the
  // results' median.
  std::vector<analysis::CalibrationCase> cases;
  const double ratios[] = {0.9, 1.25, 0.95, 1.0, 1.2, 0.92, 1.1, 0.97};
  int k = 0;
  for (const char* generation : {"hopper", "ampere"})
    for (double scale : {0.5, 1.0, 2.0, 4.0}) {
      auto c = toy_case("bert", generation, scale, "s" + std::to_string(k));
      c.table_samples = 1e6;
      c.scored_samples = ratios[k++] * 1e6;
      cases.push_back(c);
    }
  const analysis::ParameterSpace table(cases);
  auto truth = table.start();
  for (std::size_t j = 0; j < table.size(); ++j)
    if (analysis::prior_sd(table.parameters()[j]) > 0)
      truth[j] = 0.0;
  truth[static_cast<std::size_t>(table.index_of("compute.bert"))] = std::log(0.6);
  truth[static_cast<std::size_t>(table.index_of("generation.ampere"))] = std::log(0.8);
  for (auto& c : cases) // what each result scored: its step at the truth, its own samples
    c.actual_s = (table.at_table_s(c, truth) - c.fixed_s) * c.convergence_ratio() + c.fixed_s;

  const auto runs = table.with_convergence_basis(analysis::ParameterSpace::ConvergenceBasis::Runs, cases);
  const auto at_runs = analysis::fit_calibration(runs, cases);
  CHECK(at_runs.rms_log_error < 1e-4);
  CHECK(runs.value_of(static_cast<std::size_t>(runs.index_of("compute.bert")), at_runs.x) == Approx(0.6).epsilon(1e-3));
  const auto at_table = analysis::fit_calibration(table, cases);
  CHECK(at_table.rms_log_error > 0.05);
  // A prediction: the table's samples times the median ratio (of 0.97 and 1.0, the middle two of eight).
  const double median = std::sqrt(0.97 * 1.0);
  const auto& c = cases.front();
  CHECK(runs.convergence_factor(c) == Approx(median));
  CHECK(runs.predict_s(c, at_runs.x) - c.fixed_s == Approx(median * (runs.at_table_s(c, at_runs.x) - c.fixed_s)));
  CHECK(runs.fitted_s(c, at_runs.x) == Approx(c.actual_s).epsilon(1e-4));
}
