// Every simulated result's interval (sim/uncertainty): from the committed calibration's left-out
// errors, on the scenarios users run.

#include "analysis/calibration/PredictionIntervals.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "sim/run/ScenarioRunner.hpp"
#include "sim/uncertainty/ResultUncertainty.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

using namespace gpuscale;

namespace {

const std::string kSource = GPUSCALE_SOURCE_DIR;

/// BERT-large on one node of `node_type` (a catalog node type), written beside the test's scratch folder.
std::string bert_on(const std::string& node_type, int gpus, const std::string& extra = "", int nodes = 0)
{
  nodes = nodes > 0 ? nodes : (gpus + 7) / 8;
  const auto dir = std::filesystem::temp_directory_path() / "gpuscale-uncertainty-test";
  std::filesystem::create_directories(dir);
  const auto platform = dir / (node_type + ".platform.yaml");
  std::ofstream(platform) << "imports: [" << kSource << "/platforms/catalog/accelerators.yaml, " << kSource
                          << "/platforms/catalog/node_types.yaml]\n"
                          << "cluster:\n  name: one-" << node_type << "\n  node_groups:\n    - node_type: " << node_type
                          << "\n      count: " << nodes << "\n  fabric:\n    topology: single_switch\n    switch_latency: \"0.5 us\"\n";
  const auto scenario = dir / (node_type + "-" + std::to_string(gpus) + "-" + std::to_string(extra.size()) + ".yaml");
  std::ofstream(scenario) << "scenario:\n  name: bert-" << node_type << "\n  platform: " << platform.string()
                          << "\n  workload: " << kSource << "/workloads/bert-large.yaml\n  gpus: " << gpus
                          << "\n  global_batch_size: " << 48 * gpus << "\n  micro_batch_size: 48\n  zero_stage: 0\n"
                          << extra;
  return scenario.string();
}

struct Simulated {
  model::ResolvedScenario resolved;
  run::ScenarioOutcome outcome;
};

Simulated simulate(const std::string& path)
{
  Simulated s{config::read_scenario(path), {}};
  s.outcome = run::run_scenario(s.resolved, true); // a child each: one SimGrid engine per process
  return s;
}

double log_width(double low, double high) { return std::log(high / low); }

} // namespace

TEST_CASE("uncertainty: the ratio of two identical scenarios is exactly [1, 1]", "[uncertainty]")
{
  const auto a = simulate(kSource + "/scenarios/mlperf/bert-dgx-h100-8gpu.yaml");
  const auto b = simulate(kSource + "/scenarios/mlperf/bert-dgx-h100-8gpu.yaml");
  REQUIRE(a.outcome.uncertainty);
  REQUIRE(uncertainty::same_simulation(a.outcome.record, b.outcome.record));
  const auto& intervals = config::default_calibration().intervals;
  for (auto metric : {uncertainty::RatioMetric::Step, uncertainty::RatioMetric::TimeToTrain}) {
    const double t = metric == uncertainty::RatioMetric::Step ? a.outcome.record.iter_time_s
                                                              : a.outcome.record.time_to_train_min;
    const auto r = uncertainty::time_ratio(intervals, *a.outcome.uncertainty, t, *b.outcome.uncertainty, t, metric, true);
    CHECK(r.ratio == 1.0);
    CHECK(r.low == 1.0);
    CHECK(r.high == 1.0);
    CHECK(r.tie());
  }
}

TEST_CASE("uncertainty: an accelerator the calibration lacks gets a wider interval than H100", "[uncertainty]")
{
  const auto h100 = simulate(bert_on("dgx-h100", 8));
  const auto gh200 = simulate(bert_on("gh200-4", 8, "", 2));      // Hopper, a family without results
  const auto v100 = simulate(bert_on("dgx1-v100-32gb", 8, "  precision: fp16\n")); // Volta: no result at all
  REQUIRE(h100.outcome.uncertainty);
  REQUIRE(gh200.outcome.uncertainty);
  REQUIRE(v100.outcome.uncertainty);
  CHECK(h100.outcome.record.interval_regime == "calibrated_family");
  CHECK(gh200.outcome.record.interval_regime == "new_family_calibrated_generation");
  CHECK(v100.outcome.record.interval_regime == "uncalibrated_generation");
  const auto width = [](const run::ScenarioOutcome& o) {
    return log_width(o.record.time_to_train_low_min, o.record.time_to_train_high_min);
  };
  CHECK(width(gh200.outcome) > width(h100.outcome));
  CHECK(width(v100.outcome) > width(gh200.outcome));
  // Each interval holds its own prediction, for the step as for the time to train.
  for (const auto* o : {&h100.outcome, &gh200.outcome, &v100.outcome}) {
    CHECK(o->record.iter_time_low_s < o->record.iter_time_s);
    CHECK(o->record.iter_time_high_s > o->record.iter_time_s);
    CHECK(o->record.time_to_train_low_min < o->record.time_to_train_min);
    CHECK(o->record.time_to_train_high_min > o->record.time_to_train_min);
  }
}

TEST_CASE("uncertainty: two options on one family have a narrower ratio than their intervals side by side",
          "[uncertainty]")
{
  const auto eight = simulate(bert_on("dgx-h100", 8));
  const auto sixteen = simulate(bert_on("dgx-h100", 16));
  REQUIRE(eight.outcome.uncertainty);
  REQUIRE(sixteen.outcome.uncertainty);
  const auto& a = eight.outcome.record;
  const auto& b = sixteen.outcome.record;
  const auto r = uncertainty::time_ratio(config::default_calibration().intervals, *eight.outcome.uncertainty,
                                         a.iter_time_s, *sixteen.outcome.uncertainty, b.iter_time_s,
                                         uncertainty::RatioMetric::Step, false);
  CHECK(r.basis.rfind("same_family pairs of calibrated_family", 0) == 0);
  CHECK(r.low < r.ratio);
  CHECK(r.high > r.ratio);
  // Side by side: the first's lowest over the second's highest, and the other way round.
  CHECK(log_width(r.low, r.high) < log_width(a.iter_time_low_s / b.iter_time_high_s, a.iter_time_high_s / b.iter_time_low_s));
}

TEST_CASE("uncertainty: a mixed cluster is as uncertain as its least-known type", "[uncertainty]")
{
  const auto mixed = simulate(kSource + "/scenarios/compare/bert-64-v100-h100.yaml");
  REQUIRE(mixed.outcome.uncertainty);
  const auto& regimes = mixed.outcome.uncertainty->regimes;
  CHECK(regimes.front() == model::PredictionRegime::UncalibratedGeneration);
  CHECK(std::find(regimes.begin(), regimes.end(), model::PredictionRegime::CalibratedFamily) != regimes.end());
  CHECK(mixed.outcome.uncertainty->accelerators == "h100-sxm5-80gb,v100-sxm2-32gb");
}

TEST_CASE("uncertainty: a scenario stating its own efficiencies has no interval",
          "[uncertainty]")
{
  const auto stated = simulate(bert_on("dgx-h100", 8, "  efficiency: {compute: 0.5, memory: 0.5}\n"));
  CHECK_FALSE(stated.outcome.uncertainty);
  CHECK(stated.outcome.record.interval_regime.empty());
  CHECK(stated.outcome.record.time_to_train_low_min == 0);
  CHECK(stated.outcome.no_interval_reason.find("efficiency:") != std::string::npos);
}

TEST_CASE("uncertainty: the linearised parameter spread matches sampling the surrogate at drawn parameters",
          "[uncertainty]")
{
  // The interval's parameter term is the delta method on the surrogate of the run's step. Drawing the
  // parameters from their standard errors (independent normals in the optimiser's coordinates, as the
  // delta method takes them) and taking the spread of the surrogate's log time measures what the
  // linearisation misses: the min(1, .) of the compute efficiency and the max of exposed communication.
  const auto& calibration = config::default_calibration();
  std::mt19937_64 rng(20261206);
  for (const std::string name : {"bert", "llama2-70b-lora", "resnet50", "retinanet", "stable-diffusion"}) {
    const auto s = simulate(kSource + "/scenarios/mlperf/" + name + "-dgx-h100-8gpu.yaml");
    REQUIRE(s.outcome.uncertainty);
    const auto c = uncertainty::surrogate_case(calibration, s.resolved, s.outcome.record);
    const auto space = analysis::ParameterSpace::for_request(c, calibration);
    const auto point = analysis::calibrated_point(space, calibration);
    std::normal_distribution<double> normal;
    double sum = 0, sum2 = 0;
    const int draws = 4000;
    for (int k = 0; k < draws; ++k) {
      auto x = point.x;
      for (std::size_t j = 0; j < x.size(); ++j)
        x[j] += point.sigma[j] * normal(rng);
      const double t = std::log(space.predict_s(c, x));
      sum += t;
      sum2 += t * t;
    }
    const double sampled = std::sqrt(sum2 / draws - (sum / draws) * (sum / draws));
    const double linear = s.outcome.uncertainty->parameter_log_sd;
    INFO(name << ": linearised " << linear << ", sampled " << sampled);
    CHECK(linear > 0);
    CHECK(std::abs(sampled / linear - 1) < 0.15);
    WARN(name << ": parameter log-sd linearised " << linear << ", sampled " << sampled);
  }
}
