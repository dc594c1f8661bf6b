// Sweep manifests in results files: round trip, shard arithmetic, and that appends keep them.

#include "sim/results/ResultsFile.hpp"
#include "sim/results/SweepManifest.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <unistd.h>

using namespace gpuscale::results;

namespace {

std::string temporary_path(const std::string& name)
{
  const auto dir = std::filesystem::temp_directory_path() / ("gpuscale-manifest-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

SweepManifest example(int shard_index, int shard_count)
{
  return {"0123456789abcdef", "sweeps/x.yaml", "scenario: {}\nsweep: {}\n", 10, {0, 2, 3, 5, 7, 8, 9}, shard_index,
          shard_count, {{"../platforms/a b.yaml", "00112233aabbccdd"}, {"../workloads/w.yaml", "missing"}}};
}

} // namespace

TEST_CASE("results::SweepManifest survives a write, a read and later appends", "[results][sweep]")
{
  const std::string path = temporary_path("manifest.h5");
  std::filesystem::remove(path);
  write_sweep_manifest(path, example(1, 3), "test");
  RunRecord row;
  row.sweep_id = "0123456789abcdef";
  row.sweep_point = 2;
  append_runs(path, {{row, "text"}}, "test");
  const auto manifests = read_sweep_manifests(path);
  REQUIRE(manifests.size() == 1);
  CHECK(manifests.front() == example(1, 3));
  CHECK(read_runs(path).front().sweep_point == 2);
  write_sweep_manifest(path, example(0, 1), "test"); // replaces the sweep's manifest
  CHECK(read_sweep_manifests(path) == std::vector<SweepManifest>{example(0, 1)});
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST_CASE("results::SweepManifest::expected_points takes every N-th runnable point", "[results][sweep]")
{
  CHECK(example(0, 3).expected_points() == std::vector<std::int64_t>{0, 5, 9});
  CHECK(example(1, 3).expected_points() == std::vector<std::int64_t>{2, 7});
  CHECK(example(2, 3).expected_points() == std::vector<std::int64_t>{3, 8});
  CHECK(example(0, 1).expected_points() == example(0, 1).runnable_points);
  CHECK(example(1, 3).shard_label() == "1/3");
  CHECK(example(0, 1).shard_label() == "all");
}

TEST_CASE("results::encode_run_record round-trips a record", "[results][sweep]")
{
  RunRecord row;
  row.workload = "resnet50";
  row.sweep_id = "0123456789abcdef";
  row.sweep_point = 41;
  row.iter_time_s = 0.125;
  row.outcome = Outcome::Infeasible;
  row.infeasible_reason = "out of memory";
  CHECK(decode_run_record(encode_run_record(row)) == row);
  CHECK_THROWS_AS(decode_run_record("short"), ResultsFileError);
}
