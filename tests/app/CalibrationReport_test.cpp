// What calibrate derives from the MLPerf entries besides the fit: the batch-size points predict uses
// and the reference date a calibration without a trend records.

#include "sim/app/CalibrationReport.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;
using model::Benchmark;

namespace {

/// `count` entries of `benchmark` on `accelerators` at `global_batch_size`, in `round`.
void add(std::vector<model::MlperfEntry>& entries, Benchmark benchmark, int accelerators, int global_batch_size,
         int count = 1, const std::string& round = "v4.0")
{
  for (int i = 0; i < count; ++i) {
    model::MlperfEntry e;
    e.round = round;
    e.benchmark = benchmark;
    e.description.number_of_nodes = 1;
    e.description.accelerators_per_node = accelerators;
    e.global_batch_size = global_batch_size;
    entries.push_back(e);
  }
}

} // namespace

TEST_CASE("app::batch_size_rules: per-count medians, non-decreasing, each a batch that was used", "[app][calibration]")
{
  std::vector<model::MlperfEntry> entries;
  add(entries, Benchmark::Bert, 4, 896, 3);
  add(entries, Benchmark::Bert, 6, 66, 2); // the few that ran smaller than the many below them
  add(entries, Benchmark::Bert, 8, 768, 19);
  add(entries, Benchmark::Bert, 64, 4608, 2);
  add(entries, Benchmark::Resnet, 8, 3200);
  add(entries, Benchmark::Bert, 0, 999); // no accelerator count: ignored
  const auto points = app::batch_size_rules(entries);
  REQUIRE(points.size() == 5);
  // 4 (896 x3) and 6 (66 x2) decrease: pooled {66, 66, 896, 896, 896}, median 896; then 8's 768 is
  // below that, pooled with all 24 results: median 768. 64 keeps 4608.
  CHECK(points[0].benchmark == Benchmark::Bert);
  CHECK(points[0].accelerators == 4);
  CHECK(points[0].global_batch_size == 768);
  CHECK(points[0].results == 3);
  CHECK(points[1].accelerators == 6);
  CHECK(points[1].global_batch_size == 768);
  CHECK(points[2].accelerators == 8);
  CHECK(points[2].global_batch_size == 768);
  CHECK(points[3].accelerators == 64);
  CHECK(points[3].global_batch_size == 4608);
  CHECK(points[4].benchmark == Benchmark::Resnet);
  CHECK(points[4].global_batch_size == 3200);
}

TEST_CASE("app::latest_round_date is the date of the latest round named", "[app][calibration]")
{
  std::vector<model::MlperfEntry> entries;
  CHECK_FALSE(app::latest_round_date(entries).has_value());
  add(entries, Benchmark::Bert, 8, 768, 1, "v4.1");
  add(entries, Benchmark::Bert, 8, 768, 1, "v3.0");
  add(entries, Benchmark::Bert, 8, 768, 1, "not-a-round");
  const auto latest = app::latest_round_date(entries);
  REQUIRE(latest.has_value());
  CHECK(model::to_string(*latest) == "2024-10-01");
}
