#include "sim/config/ConvergenceReader.hpp"
#include "sim/model/TimeToTrain.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

using gpuscale::model::ConvergenceTable;
using gpuscale::model::estimate_time_to_train;
using gpuscale::model::IterationTiming;
using gpuscale::model::TimeToTrain;

namespace {

ConvergenceTable committed_table(const std::string& benchmark)
{
  return gpuscale::config::read_convergence(std::string(GPUSCALE_SOURCE_DIR) + "/workloads/convergence/" + benchmark +
                                            ".yaml");
}

/// S = 1e6 samples at every batch size in [500, 2000]; an evaluation of 10,000 samples every 100,000.
ConvergenceTable synthetic_table()
{
  ConvergenceTable table;
  table.benchmark = "toy";
  table.points = {{500, 1e6, 3}, {2000, 1e6, 3}};
  table.evaluation.every_samples = 1e5;
  table.evaluation.eval_samples = 1e4;
  table.evaluation.relative_cost_per_sample = 1.0 / 3.0;
  table.run_start_overhead_s = 60;
  return table;
}

} // namespace

TEST_CASE("model::estimate_time_to_train matches the closed form on a synthetic table", "[model]")
{
  const TimeToTrain result = estimate_time_to_train(synthetic_table(), IterationTiming{0.5, 1000});
  // 1e6 / 1000 = 1000 iterations of 0.5 s; evaluations at 1e5, 2e5, ..., 1e6: 10, each of
  // 1e4 samples x 1/3 x 0.5 ms per sample = 5/3 s.
  CHECK(result.iterations == 1000.0);
  CHECK(result.evaluations == Approx(10.0).epsilon(1e-12));
  CHECK(result.training_s == Approx(500.0).epsilon(1e-12));
  CHECK(result.evaluation_s == Approx(10 * 5.0 / 3).epsilon(1e-12));
  CHECK(result.overhead_s == Approx(60.0).epsilon(1e-12));
  CHECK(result.total_s == Approx(500.0 + 50.0 / 3 + 60).epsilon(1e-12));
  CHECK_FALSE(result.extrapolated);
}

TEST_CASE("model::estimate_time_to_train rounds up to whole iterations", "[model]")
{
  const TimeToTrain result = estimate_time_to_train(synthetic_table(), IterationTiming{2.0, 1536});
  CHECK(result.iterations == std::ceil(1e6 / 1536)); // 652: the last step is taken whole
  CHECK(result.training_s == Approx(652 * 2.0).epsilon(1e-12));
}

TEST_CASE("model::estimate_time_to_train parts add up for every committed table", "[model]")
{
  for (const std::string benchmark : {"bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion"}) {
    const ConvergenceTable table = committed_table(benchmark);
    for (int batch : {8, 64, 256, 1000, 3072, 8192, 100000}) {
      INFO(benchmark << " at global batch " << batch);
      const TimeToTrain result = estimate_time_to_train(table, IterationTiming{0.25, batch});
      CHECK(result.total_s == Approx(result.training_s + result.evaluation_s + result.overhead_s).epsilon(1e-12));
      CHECK(result.training_s > 0);
      CHECK(result.evaluation_s >= 0);
      CHECK(result.overhead_s == Approx(table.run_start_overhead_s).epsilon(1e-12));
      const bool inside = batch >= table.points.front().global_batch_size && batch <= table.points.back().global_batch_size;
      CHECK(result.extrapolated == !inside);
    }
  }
}

TEST_CASE("model::estimate_time_to_train flags batch sizes outside the reference points", "[model]")
{
  const ConvergenceTable table = committed_table("llama2_70b_lora"); // points at 8 ... 128
  CHECK(estimate_time_to_train(table, IterationTiming{1.0, 4}).extrapolated);
  CHECK_FALSE(estimate_time_to_train(table, IterationTiming{1.0, 64}).extrapolated);
  CHECK(estimate_time_to_train(table, IterationTiming{1.0, 1024}).extrapolated);
  // Above the points the critical-batch-size fit takes over: more samples than at the largest point.
  const TimeToTrain above = estimate_time_to_train(table, IterationTiming{1.0, 1024});
  CHECK(above.samples_to_converge > 2 * table.points.back().value);
  CHECK(above.samples_to_converge == table.model().samples_to_converge(1024).samples);
}

TEST_CASE("model::estimate_time_to_train carries the interval of samples to converge into the time to train", "[model]")
{
  const ConvergenceTable table = committed_table("retinanet"); // points at 256 ... 4096
  const IterationTiming inside{0.2, 1024};
  const TimeToTrain measured = estimate_time_to_train(table, inside);
  CHECK(measured.samples_to_converge_low == measured.samples_to_converge);
  CHECK(measured.samples_to_converge_high == measured.samples_to_converge);
  CHECK(measured.total_low_s == measured.total_s);
  CHECK(measured.total_high_s == measured.total_s);

  const IterationTiming outside{0.2, 8192};
  const TimeToTrain extrapolated = estimate_time_to_train(table, outside);
  REQUIRE(extrapolated.extrapolated);
  CHECK(extrapolated.samples_to_converge_low < extrapolated.samples_to_converge);
  CHECK(extrapolated.samples_to_converge < extrapolated.samples_to_converge_high);
  // The ends are the same closed form at the interval's sample counts: ceil(S / B) steps, an
  // evaluation every epoch of 24,781 images at 2.46 x the training cost per sample, 4 s overhead.
  for (const auto& [samples, total_s] : {std::pair{extrapolated.samples_to_converge_low, extrapolated.total_low_s},
                                           std::pair{extrapolated.samples_to_converge_high, extrapolated.total_high_s}}) {
    const double evaluations = std::max(1.0, 1.0 + (samples - 1170301.0) / 1170301.0);
    const double expected_s = std::ceil(samples / 8192) * 0.2 + evaluations * 24781 * 2.46 * 0.2 / 8192 + 4;
    CHECK(total_s == Approx(expected_s).epsilon(1e-12));
  }
}

TEST_CASE("model::estimate_time_to_train leaves untimed evaluation out (MLPerf stable diffusion)", "[model]")
{
  const ConvergenceTable table = committed_table("stable_diffusion");
  REQUIRE_FALSE(table.evaluation.timed);
  const TimeToTrain result = estimate_time_to_train(table, IterationTiming{1.2, 1024});
  CHECK(result.evaluation_s == 0.0);
  CHECK(result.evaluations == 0.0);
  CHECK(result.total_s == Approx(result.training_s + result.overhead_s).epsilon(1e-12));
}

TEST_CASE("model::estimate_time_to_train never gets faster when iterations get slower", "[model]")
{
  for (const std::string benchmark : {"bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion"}) {
    const ConvergenceTable table = committed_table(benchmark);
    const int batch = table.points[table.points.size() / 2].global_batch_size;
    double previous = 0;
    for (double iteration_s = 0.01; iteration_s < 100; iteration_s *= 1.7) {
      const double total = estimate_time_to_train(table, IterationTiming{iteration_s, batch}).total_s;
      INFO(benchmark << " at " << iteration_s << " s per iteration");
      CHECK(total > previous);
      previous = total;
    }
  }
}

TEST_CASE("model::EvaluationSchedule follows MLPerf's BERT interval rule", "[model]")
{
  const auto& evaluation = committed_table("bert").evaluation;
  // floor(0.05 * (230.23 * B + 3e6) / 25000) * 25000; the MLPerf logs show ~150,000 at B = 768 and ~200,000 at 4608.
  CHECK(evaluation.interval_samples(768) == 150000.0);
  CHECK(evaluation.interval_samples(4608) == 200000.0);
  CHECK(evaluation.interval_samples(16384) == 325000.0);
}

TEST_CASE("model::EvaluationSchedule counts evaluations as the MLPerf logs do", "[model]")
{
  // Median evaluations per valid run in shared/mlperf's result logs at these batch sizes (see
  // workloads/convergence/README.md); the tables' cadence must land within 1.5 of them.
  struct Case {
    const char* benchmark;
    int global_batch_size;
    double logged_evaluations;
  };
  for (const Case& c : {Case{"resnet", 1632, 9}, Case{"bert", 768, 16}, Case{"llama2_70b_lora", 8, 5},
                        Case{"retinanet", 256, 4}}) {
    INFO(c.benchmark << " at global batch " << c.global_batch_size);
    const ConvergenceTable table = committed_table(c.benchmark);
    const double samples = table.curve().samples_to_converge(c.global_batch_size).samples;
    CHECK(std::abs(table.evaluation.evaluations(c.global_batch_size, samples) - c.logged_evaluations) <= 1.5);
  }
}

TEST_CASE("model::estimate_time_to_train rejects a non-positive iteration time or batch", "[model]")
{
  CHECK_THROWS_AS(estimate_time_to_train(synthetic_table(), IterationTiming{0.0, 1000}), std::invalid_argument);
  CHECK_THROWS_AS(estimate_time_to_train(synthetic_table(), IterationTiming{-1.0, 1000}), std::invalid_argument);
  CHECK_THROWS_AS(estimate_time_to_train(synthetic_table(), IterationTiming{1.0, 0}), std::invalid_argument);
}
