#include "analysis/calibration/RunStartGaps.hpp"
#include "sim/config/ConvergenceReader.hpp"
#include "sim/config/MlperfRepositoryReader.hpp"
#include "tests/support/MlperfData.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace gpuscale;

namespace {

model::MlperfEntry entry_with_gap(model::Benchmark benchmark, std::optional<double> gap_s)
{
  model::MlperfEntry entry;
  entry.benchmark = benchmark;
  entry.median_start_gap_s = gap_s;
  return entry;
}

} // namespace

TEST_CASE("analysis::measure_run_start_gaps takes the median over the results that log a start, per benchmark",
          "[calibration]")
{
  using model::Benchmark;
  // One slow starter among five does not move the median; a result without a logged start is not one of them.
  const std::vector<model::MlperfEntry> entries{
      entry_with_gap(Benchmark::Resnet, 0.4),  entry_with_gap(Benchmark::Resnet, 0.8),
      entry_with_gap(Benchmark::Resnet, 0.9),  entry_with_gap(Benchmark::Resnet, 60.0),
      entry_with_gap(Benchmark::Resnet, 0.7),  entry_with_gap(Benchmark::Resnet, std::nullopt),
      entry_with_gap(Benchmark::Bert, 0.02),   entry_with_gap(Benchmark::Bert, 0.04),
      entry_with_gap(Benchmark::Retinanet, std::nullopt)};
  const auto gaps = analysis::measure_run_start_gaps(entries);
  REQUIRE(gaps.size() == 2); // RetinaNet: nothing logged
  CHECK(gaps[0].benchmark == Benchmark::Bert);
  CHECK(gaps[0].logged_s == Approx(0.03));
  CHECK(gaps[0].results == 2);
  CHECK(gaps[1].benchmark == Benchmark::Resnet);
  CHECK(gaps[1].logged_s == Approx(0.8));
  CHECK(gaps[1].results == 5);
}

TEST_CASE("every convergence table's run-start overhead covers the MLPerf logs' start of training", "[calibration][mlperf]")
{
  const auto dir = test::mlperf_dir();
  if (!dir)
    return;
  const auto imported = config::read_mlperf_repository(*dir);
  const auto gaps = analysis::measure_run_start_gaps(imported.entries);
  CHECK(gaps.size() == model::all_benchmarks().size());
  for (const auto& gap : gaps) {
    const std::string name = model::to_string(gap.benchmark);
    INFO(name << ": logged " << gap.logged_s << " s over " << gap.results << " results");
    const auto table = config::read_convergence(std::string(GPUSCALE_SOURCE_DIR) + "/workloads/convergence/" + name + ".yaml");
    CHECK(table.run_start_overhead_s >= gap.logged_s - analysis::kRunStartToleranceS);
    CHECK(gap.results >= 20);
    // ResNet's is its logged start: its 2,528- and 3,584-GPU runs (11-14 s) show no more (README).
    if (gap.benchmark == model::Benchmark::Resnet)
      CHECK(std::abs(table.run_start_overhead_s - gap.logged_s) <= analysis::kRunStartToleranceS);
  }
}
