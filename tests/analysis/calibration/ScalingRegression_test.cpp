#include "analysis/calibration/BaselineComparison.hpp"
#include "analysis/calibration/ScalingRegression.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gpuscale;

namespace {

analysis::CalibrationCase result(const std::string& benchmark, const std::string& family, const std::string& generation,
                                 int accelerators, double time_s)
{
  analysis::CalibrationCase c;
  c.benchmark = *model::benchmark_of_name(benchmark);
  c.family = family;
  c.generation = generation;
  c.system_key = "acme/" + family + "x" + std::to_string(accelerators);
  c.round = "v4.0";
  c.accelerators = accelerators;
  c.actual_s = time_s;
  return c;
}

/// t = exp(a - s log n), the regression's own form.
double time_of(double a, double s, int accelerators) { return std::exp(a - s * std::log(accelerators)); }

/// bert on two hopper families and one ampere family, resnet on one family: known a and s.
std::vector<analysis::CalibrationCase> known_cases()
{
  std::vector<analysis::CalibrationCase> cases;
  for (int n : {8, 16, 64, 512})
    cases.push_back(result("bert", "h100", "hopper", n, time_of(4.0, 0.9, n)));
  for (int n : {8, 32})
    cases.push_back(result("bert", "h200", "hopper", n, time_of(3.6, 0.9, n)));
  cases.push_back(result("bert", "a100", "ampere", 8, time_of(4.8, 0.9, 8)));
  for (int n : {8, 16, 32})
    cases.push_back(result("resnet", "h100", "hopper", n, time_of(5.0, 0.7, n)));
  return cases;
}

} // namespace

TEST_CASE("analysis::ScalingRegression recovers known intercepts and slopes exactly", "[analysis]")
{
  const auto cases = known_cases();
  const analysis::ScalingRegression regression(cases);
  CHECK(regression.slope_identified(model::Benchmark::Bert));
  CHECK(*regression.slope(model::Benchmark::Bert) == Approx(0.9).epsilon(1e-12));
  CHECK(*regression.slope(model::Benchmark::Resnet) == Approx(0.7).epsilon(1e-12));
  CHECK(*regression.intercept(model::Benchmark::Bert, "h100") == Approx(4.0).epsilon(1e-12));
  CHECK(*regression.intercept(model::Benchmark::Bert, "h200") == Approx(3.6).epsilon(1e-12));
  CHECK(*regression.intercept(model::Benchmark::Bert, "a100") == Approx(4.8).epsilon(1e-12)); // one count, the slope shared
  CHECK(*regression.intercept(model::Benchmark::Resnet, "h100") == Approx(5.0).epsilon(1e-12));
  for (const auto& c : cases) {
    const auto p = regression.predict(c);
    REQUIRE(p);
    CHECK(p->time_s == Approx(c.actual_s).epsilon(1e-10));
    CHECK(p->source == analysis::ScalingRegression::InterceptSource::Fitted);
  }
}

TEST_CASE("analysis::ScalingRegression gives an unseen family its generation's mean intercept, else its benchmark's",
          "[analysis]")
{
  const analysis::ScalingRegression regression(known_cases());
  using Source = analysis::ScalingRegression::InterceptSource;
  // A new hopper family: the mean of h100's and h200's a (4.0, 3.6), not a100's.
  const auto hopper = regression.predict(result("bert", "h100-nvl", "hopper", 16, 1.0));
  REQUIRE(hopper);
  CHECK(hopper->source == Source::GenerationMean);
  CHECK(hopper->time_s == Approx(time_of(3.8, 0.9, 16)).epsilon(1e-10));
  // A family of a generation bert never trained on: the mean of all three families' a.
  const auto blackwell = regression.predict(result("bert", "b200", "blackwell", 8, 1.0));
  REQUIRE(blackwell);
  CHECK(blackwell->source == Source::BenchmarkMean);
  CHECK(blackwell->time_s == Approx(time_of((4.0 + 3.6 + 4.8) / 3, 0.9, 8)).epsilon(1e-10));
  // A benchmark with no training result: no prediction.
  CHECK_FALSE(regression.predict(result("llama2_70b_lora", "h100", "hopper", 8, 1.0)));
  CHECK_FALSE(regression.slope(model::Benchmark::Llama2_70bLora));
}

TEST_CASE("analysis::ScalingRegression holds s at 1 for a benchmark trained at one accelerator count", "[analysis]")
{
  // Every result on 8 accelerators: log n is constant, s cannot be told from a.
  const std::vector<analysis::CalibrationCase> cases = {result("bert", "h100", "hopper", 8, 20.0),
                                                        result("bert", "h100", "hopper", 8, 30.0),
                                                        result("bert", "h200", "hopper", 8, 15.0)};
  const analysis::ScalingRegression regression(cases);
  CHECK_FALSE(regression.slope_identified(model::Benchmark::Bert));
  CHECK(*regression.slope(model::Benchmark::Bert) == 1.0);
  // a = mean of log t + log n: the geometric mean of h100's results on 8 accelerators.
  CHECK(*regression.intercept(model::Benchmark::Bert, "h100") == Approx(std::log(std::sqrt(20.0 * 30.0) * 8)).epsilon(1e-12));
  const auto twice = regression.predict(result("bert", "h100", "hopper", 16, 1.0));
  REQUIRE(twice);
  CHECK(twice->time_s == Approx(std::sqrt(20.0 * 30.0) / 2).epsilon(1e-12)); // ideal scaling: half the time
}

TEST_CASE("analysis::compare_mode judges both models on the results both predicted, per bucket", "[analysis]")
{
  std::vector<analysis::CalibrationCase> cases = {result("bert", "h100", "hopper", 8, 10.0),
                                                  result("bert", "h100", "hopper", 128, 2.0),
                                                  result("resnet", "h100", "hopper", 8, 10.0)};
  analysis::ValidationFold fold{"all", {false, false, false}, {0, 1, 2}};
  // gpuscale: 10 % off on 8, 30 % off on 128; the regression 20 % off on both; resnet unpredicted by it.
  const std::vector<double> ours = {11.0, 2.6, 10.0};
  std::vector<std::optional<analysis::ScalingRegression::Prediction>> theirs(3);
  theirs[0] = analysis::ScalingRegression::Prediction{12.0, analysis::ScalingRegression::InterceptSource::Fitted};
  theirs[1] = analysis::ScalingRegression::Prediction{
      1.6, analysis::ScalingRegression::InterceptSource::GenerationMean};
  const auto c = analysis::compare_mode(analysis::ValidationMode::LeaveOneSystemOut, cases, {fold}, ours, theirs);
  CHECK(c.left_out == 3);
  CHECK(c.compared == 2);
  CHECK(c.regression_unpredicted == 1);
  CHECK(c.regression_generation_mean == 1);
  CHECK(c.gpuscale.overall.median_pct == Approx(20.0));
  CHECK(c.regression.overall.median_pct == Approx(20.0));
  CHECK_FALSE(c.beats_overall); // equal is not better
  CHECK(c.median_reduction_pct == Approx(0.0).margin(1e-9));
  CHECK(c.buckets_lost == std::vector<std::string>{"65-512"}); // 30 % against 20 %; <=8 won (10 % against 20 %)
  CHECK(c.gpuscale.by_bucket.at("<=8").count == 1);
}
