#include "analysis/calibration/PredictionIntervals.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/model/Calibration.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gpuscale;

namespace {

/// Cases of `systems` distinct systems, one result each, of a calibrated family on 8 accelerators.
std::vector<analysis::CalibrationCase> cases_of(int systems)
{
  std::vector<analysis::CalibrationCase> cases(static_cast<std::size_t>(systems));
  for (int i = 0; i < systems; ++i) {
    cases[static_cast<std::size_t>(i)].system_key = "s" + std::to_string(i);
    cases[static_cast<std::size_t>(i)].family = "h100-sxm5-80gb";
    cases[static_cast<std::size_t>(i)].benchmark = model::Benchmark::Bert;
    cases[static_cast<std::size_t>(i)].accelerators = 8 * (i + 1);
  }
  return cases;
}

} // namespace

TEST_CASE("analysis::summarise_mode takes split-conformal bounds and a leave-one-system-out coverage", "[analysis]")
{
  // Residuals -0.5, -0.4, ..., +0.5 (11 systems): ranks floor(0.1 x 12) = 1 and ceil(0.9 x 12) = 11,
  // the extremes.
  const auto cases = cases_of(11);
  analysis::ModeResiduals mode;
  for (int i = 0; i < 11; ++i) {
    mode.cases.push_back(static_cast<std::size_t>(i));
    mode.log_residuals.push_back(-0.5 + 0.1 * i);
  }
  const auto q = analysis::summarise_mode(mode, cases);
  CHECK(q.results == 11);
  CHECK(q.low_log == Approx(-0.5));
  CHECK(q.high_log == Approx(0.5));
  // Each against the other 10 (ranks 1 and 10: their extremes): -0.5 and +0.5 fall outside, 9 of 11 inside.
  CHECK(q.coverage == Approx(9.0 / 11.0));
}

TEST_CASE("analysis::conformal_log_bounds: order statistics floor(0.1 (n+1)) and ceil(0.9 (n+1))", "[analysis]")
{
  std::vector<double> sorted;
  for (int i = 1; i <= 19; ++i)
    sorted.push_back(i);
  CHECK(analysis::conformal_log_bounds(sorted) == std::pair<double, double>{2.0, 18.0}); // ranks 2 and 18 of 19
  sorted.push_back(20);
  CHECK(analysis::conformal_log_bounds(sorted) == std::pair<double, double>{2.0, 19.0}); // ranks 2 and ceil(18.9)
  CHECK(analysis::conformal_log_bounds({3.0}) == std::pair<double, double>{3.0, 3.0});
}

TEST_CASE("analysis::summarise_mode covers about 80 % of a large exchangeable sample", "[analysis]")
{
  // 200 systems whose residuals are a deterministic scramble of the normal's quantiles: the coverage
  // of intervals built without each result lies at or just above the nominal 80 %.
  const int n = 200;
  const auto cases = cases_of(n);
  analysis::ModeResiduals mode;
  for (int i = 0; i < n; ++i) {
    mode.cases.push_back(static_cast<std::size_t>(i));
    const int rank = (i * 73) % n; // 73 is coprime to 200: a permutation
    const double u = (rank + 0.5) / n;
    mode.log_residuals.push_back(0.2 * std::sqrt(2.0) * std::erf(2.0 * u - 1.0)); // monotone in u, heavy enough
  }
  const auto q = analysis::summarise_mode(mode, cases);
  CHECK(q.coverage >= 0.8);
  CHECK(q.coverage <= 0.82);
}

TEST_CASE("model::regimes_for picks the validation mode of a request and interval_s unites them", "[model]")
{
  model::IntervalModel intervals;
  intervals.families = {"h100-sxm5-80gb"};
  intervals.calibrated_accelerators = {{model::Benchmark::Bert, 1024}};
  intervals.modes["calibrated_family"] = {-0.1, 0.1, 100, 0.8};
  intervals.modes["thinly_calibrated_family"] = {-0.2, 0.3, 20, 0.8};
  intervals.modes["new_family_calibrated_generation"] = {-0.2, 0.15, 50, 0.8};
  intervals.modes["uncalibrated_generation"] = {-0.3, 0.5, 10, 0.8};
  intervals.modes["beyond_calibrated_scale"] = {-0.25, 0.05, 10, 0.8};
  intervals.modes["later_round"] = {-0.2, 0.2, 10, 0.8};
  using model::PredictionRegime;
  CHECK(model::regimes_for(intervals, true, "h100-sxm5-80gb", model::Benchmark::Bert, 8) ==
        std::vector<PredictionRegime>{PredictionRegime::CalibratedFamily});
  CHECK(model::regimes_for(intervals, true, "h200-nvl-141gb", model::Benchmark::Bert, 8) ==
        std::vector<PredictionRegime>{PredictionRegime::NewFamilyCalibratedGeneration});
  CHECK(model::regimes_for(intervals, false, "mi325x", model::Benchmark::Bert, 8) ==
        std::vector<PredictionRegime>{PredictionRegime::UncalibratedGeneration});
  const auto large = model::regimes_for(intervals, true, "h100-sxm5-80gb", model::Benchmark::Bert, 2048);
  CHECK(large == std::vector<PredictionRegime>{PredictionRegime::CalibratedFamily, PredictionRegime::BeyondCalibratedScale});
  const auto one = model::interval_s(intervals, {PredictionRegime::CalibratedFamily}, 10.0);
  REQUIRE(one);
  CHECK(one->first == Approx(10.0 * std::exp(-0.1)));
  CHECK(one->second == Approx(10.0 * std::exp(0.1)));
  const auto both = model::interval_s(intervals, large, 10.0); // the wider bound of either
  REQUIRE(both);
  CHECK(both->first == Approx(10.0 * std::exp(-0.25)));
  CHECK(both->second == Approx(10.0 * std::exp(0.1)));
  intervals.modes["calibrated_family"].results = 0; // no left-out results: no interval
  CHECK_FALSE(model::interval_s(intervals, {PredictionRegime::CalibratedFamily}, 10.0));
}

TEST_CASE("config::format_calibration round-trips the prediction intervals", "[config]")
{
  model::Calibration c;
  c.compute[model::Benchmark::Bert] = {0.9, 0.05, 20, true, ""};
  c.batch_sizes = {{model::Benchmark::Bert, 8, 768, 20}};
  c.intervals.families = {"a100-sxm4-80gb", "h100-sxm5-80gb"};
  c.intervals.calibrated_accelerators = {{model::Benchmark::Bert, 4096}};
  for (auto regime : model::all_prediction_regimes())
    c.intervals.modes[model::to_string(regime)] = {-0.125, 0.25, 42, 0.8};
  c.intervals.modes["later_round"].distance_years = 0.418;
  c.intervals.modes["later_round"].same_family = {-0.0625, 0.0625, 640, 0.1};
  c.intervals.family_results["h100-sxm5-80gb"][model::Benchmark::Bert] = 17;
  c.intervals.modes["calibrated_family@blackwell"] = {-0.25, 0.125, 67, 0.8};
  c.intervals.modes["calibrated_family@hopper"] = {-0.0625, 0.1875, 184, 0.8};
  const auto read = config::read_calibration_text(config::format_calibration(c), "c.yaml");
  CHECK(read.intervals.families == c.intervals.families);
  CHECK(read.intervals.calibrated_accelerators.at(model::Benchmark::Bert) == 4096);
  REQUIRE(read.intervals.modes.size() == 8);
  CHECK(read.intervals.modes.at("calibrated_family@blackwell").low_log == Approx(-0.25));
  CHECK(read.intervals.modes.at("calibrated_family@hopper").high_log == Approx(0.1875));
  CHECK(read.intervals.modes.at("later_round").low_log == Approx(-0.125));
  CHECK(read.intervals.modes.at("later_round").high_log == Approx(0.25));
  CHECK(read.intervals.modes.at("later_round").results == 42);
  CHECK(read.intervals.modes.at("later_round").coverage == Approx(0.8));
  CHECK(read.intervals.modes.at("later_round").distance_years == Approx(0.418));
  CHECK(read.intervals.modes.at("calibrated_family").distance_years == 0.0);
  const auto& pairs = read.intervals.modes.at("later_round").same_family;
  CHECK(pairs.low_log == Approx(-0.0625));
  CHECK(pairs.high_log == Approx(0.0625));
  CHECK(pairs.pairs == 640);
  CHECK(pairs.parameter_log_sd == Approx(0.1));
  CHECK(read.intervals.modes.at("later_round").other_family.pairs == 0);
  CHECK(read.intervals.family_results.at("h100-sxm5-80gb").at(model::Benchmark::Bert) == 17);
}

TEST_CASE("model::regimes_for tells a thinly calibrated family from a well calibrated one", "[model]")
{
  model::IntervalModel intervals;
  intervals.families = {"h100-sxm5-80gb", "a100-sxm4-80gb"};
  intervals.family_results["h100-sxm5-80gb"][model::Benchmark::Bert] = model::kThinFamilyResults;
  intervals.family_results["a100-sxm4-80gb"][model::Benchmark::Resnet] = 40;
  using model::PredictionRegime;
  CHECK(model::regimes_for(intervals, true, "h100-sxm5-80gb", model::Benchmark::Bert, 8) ==
        std::vector<PredictionRegime>{PredictionRegime::CalibratedFamily});
  // Results of another benchmark do not calibrate this one.
  CHECK(model::regimes_for(intervals, true, "a100-sxm4-80gb", model::Benchmark::Bert, 8) ==
        std::vector<PredictionRegime>{PredictionRegime::ThinlyCalibratedFamily});
  intervals.family_results["h100-sxm5-80gb"][model::Benchmark::Bert] = model::kThinFamilyResults - 1;
  CHECK(model::regimes_for(intervals, true, "h100-sxm5-80gb", model::Benchmark::Bert, 8) ==
        std::vector<PredictionRegime>{PredictionRegime::ThinlyCalibratedFamily});
  intervals.family_results.clear(); // a file without counts: as before them
  CHECK(model::regimes_for(intervals, true, "a100-sxm4-80gb", model::Benchmark::Bert, 8) ==
        std::vector<PredictionRegime>{PredictionRegime::CalibratedFamily});
}

TEST_CASE("analysis::summarise_pairs bounds the difference of two results' residuals", "[analysis]")
{
  // Six systems of one family and benchmark, residuals 0, 0.1, ..., 0.5: the ordered differences are
  // +-0.1 (10 pairs), +-0.2 (8), +-0.3 (6), +-0.4 (4), +-0.5 (2), 30 in all and symmetric.
  auto cases = cases_of(6);
  analysis::ModeResiduals mode;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    mode.cases.push_back(i);
    mode.log_residuals.push_back(0.1 * static_cast<double>(i));
    mode.parameter_log_sd.push_back(0.0);
    mode.parameter_slopes.push_back({{"compute.bert", 0.05}});
  }
  const auto same = analysis::summarise_pairs(mode, cases, model::PairClass::SameFamily);
  CHECK(same.quantiles.pairs == 30);
  // Ranks floor(0.1 x 31) = 3 and ceil(0.9 x 31) = 28 of the sorted 30: -0.5, -0.5, -0.4, ... -> -0.4 and +0.4.
  CHECK(same.quantiles.low_log == Approx(-0.4));
  CHECK(same.quantiles.high_log == Approx(0.4));
  CHECK(same.quantiles.parameter_log_sd == Approx(0.0).margin(1e-15)); // the same slopes cancel
  CHECK(same.judged > 0);
  CHECK(analysis::summarise_pairs(mode, cases, model::PairClass::OtherFamily).quantiles.pairs == 0);
  // The narrower pair bounds judge a ratio; one mode without enough pairs leaves it to the caller.
  model::IntervalModel intervals;
  intervals.modes["calibrated_family"] = {-0.3, 0.3, 30, 0.8};
  intervals.modes["calibrated_family"].same_family = same.quantiles;
  const auto ratio = model::ratio_log_bounds(intervals, {model::PredictionRegime::CalibratedFamily},
                                             model::PairClass::SameFamily, 0.0);
  REQUIRE(ratio);
  CHECK(ratio->first == Approx(-0.4));
  CHECK(ratio->second == Approx(0.4));
  CHECK_FALSE(model::ratio_log_bounds(intervals, {model::PredictionRegime::CalibratedFamily},
                                      model::PairClass::OtherFamily, 0.0));
}

TEST_CASE("analysis::ratio_parameter_log_sd cancels what two results share", "[analysis]")
{
  const analysis::ParameterLogSlopes a{{"compute.bert", 0.3}, {"generation.ampere", 0.4}};
  const analysis::ParameterLogSlopes b{{"compute.bert", 0.3}};
  CHECK(analysis::ratio_parameter_log_sd(a, a) == 0.0);
  CHECK(analysis::ratio_parameter_log_sd(a, b) == Approx(0.4));
  CHECK(analysis::ratio_parameter_log_sd(a, {}) == Approx(0.5));
}

TEST_CASE("the committed calibration carries an interval for every validation mode", "[config]")
{
  const auto& intervals = config::default_calibration().intervals;
  for (auto regime : model::all_prediction_regimes()) {
    INFO(model::to_string(regime));
    const auto& q = intervals.modes.at(model::to_string(regime));
    CHECK(q.results > 0);
    CHECK(q.low_log < 0);
    CHECK(q.high_log > 0);
  }
  // What docs/UNCERTAINTY.md states of the committed bounds: a family with few results of a benchmark
  // gets a wider interval than one with many, and two options on one family a narrower ratio than
  // their two intervals side by side.
  const auto width = [](double low, double high) { return high - low; };
  const auto& calibrated = intervals.modes.at("calibrated_family");
  const auto& thin = intervals.modes.at("thinly_calibrated_family");
  CHECK(width(thin.low_log, thin.high_log) > width(calibrated.low_log, calibrated.high_log));
  CHECK(width(calibrated.same_family.low_log, calibrated.same_family.high_log) <
        width(calibrated.low_log, calibrated.high_log));
  CHECK(calibrated.same_family.pairs >= model::kMinimumPairs);
  // Fitted on v3.0-v4.1, predicting v5.0: seven months ahead (mlperf_round_date: 2024-11-13 to 2025-06-11).
  CHECK(intervals.modes.at("later_round").distance_years == Approx(0.580).margin(1e-3));
}

TEST_CASE("model::widened_log_bounds adds only the parameter uncertainty beyond the typical", "[model]")
{
  // Typical or less: unchanged.
  const auto same = model::widened_log_bounds(-0.1, 0.3, 0.05, 0.05);
  CHECK(same.first == Approx(-0.1));
  CHECK(same.second == Approx(0.3));
  CHECK(model::widened_log_bounds(-0.1, 0.3, 0.01, 0.05).second == Approx(0.3));
  // Excess s^2 - s0^2 = 0.25^2 - 0.15^2 = 0.04: half-width 0.2 becomes sqrt(0.04 + z^2 0.04) on both sides.
  const double z = model::kIntervalNormalQuantile;
  const double widen = std::sqrt(0.04 + z * z * 0.04) - 0.2;
  const auto wider = model::widened_log_bounds(-0.1, 0.3, 0.25, 0.15);
  CHECK(wider.first == Approx(-0.1 - widen));
  CHECK(wider.second == Approx(0.3 + widen));
}

TEST_CASE("analysis::parameter_log_sd is the delta method over the calibration's standard errors", "[analysis]")
{
  // A case whose time is all run overhead: t = fixed + overhead, and the overhead's coordinate is
  // minutes, so d log t / d overhead_min = 60 / t and the log-sd is sigma_s / t exactly.
  analysis::CalibrationCase c;
  c.benchmark = model::Benchmark::Bert;
  c.generation = model::kReferenceGeneration;
  c.system_key = "s";
  c.work.peak_flop_per_s = 1e15; // 1e12 FLOP at peak x 0.5: a 2 ms step, all FLOP-bound
  c.work.memory_bw_Bps = 1e12;
  c.work.flop_bound_flop = 1e12;
  c.reference = {.compute = 0.5, .memory = 1.0};
  c.prepare();
  c.iteration_s = c.reference_busy_s;
  c.step_equivalents = 0.0; // no training time: t = fixed + overhead
  c.fixed_s = 60.0;
  model::Calibration calibration;
  calibration.overhead_s[model::Benchmark::Bert] = {60.0, 30.0, 10, true, ""}; // 1 min +- 0.5 min
  const analysis::ParameterSpace space({c});
  const double t = space.predict_s(c, [&] {
    auto x = space.start();
    x[static_cast<std::size_t>(space.index_of("overhead.bert"))] = 1.0;
    return x;
  }());
  CHECK(t == Approx(120.0));
  CHECK(analysis::parameter_log_sd(space, c, calibration) == Approx(0.5 / 2.0).epsilon(1e-6));
}
