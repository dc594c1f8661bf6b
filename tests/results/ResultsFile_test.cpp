#include "sim/results/MlperfTables.hpp"
#include "sim/results/ResultsFile.hpp"

#include <catch2/catch.hpp>
#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <unistd.h>

using namespace gpuscale;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name)
{
  const fs::path dir = fs::temp_directory_path() / ("gpuscale-results-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

results::RunRecord sample_record(double iter_time_s)
{
  results::RunRecord r;
  r.scenario = "s";
  r.platform = "p";
  r.workload = "w";
  r.gpu_models = "a100-sxm4-80gb";
  r.precision = "bf16";
  r.collective = "auto";
  r.collective_used = "ring";
  r.simgrid_config = "network/model:CM02";
  r.gpus = 8;
  r.iter_time_s = iter_time_s;
  r.mem_per_gpu_bytes = 12.5e9;
  return r;
}

std::string file_bytes(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("results::append_runs then read_runs gives back every field, in order, with run ids", "[results]")
{
  const auto path = (fresh_dir("roundtrip") / "r.h5").string();
  auto infeasible = sample_record(0);
  infeasible.outcome = results::Outcome::Infeasible;
  infeasible.infeasible_reason = "out of memory: needs 143 GiB";
  auto graph = sample_record(0.5);
  graph.cuda_graph = 1;
  CHECK(results::append_runs(path, {{sample_record(0.25), "scenario: a"}}, "test") == std::vector<std::int64_t>{1});
  CHECK(results::append_runs(path, {{infeasible, "scenario: b"}, {graph, "scenario: c"}}, "test") ==
        std::vector<std::int64_t>{2, 3});
  const auto rows = results::read_runs(path);
  REQUIRE(rows.size() == 3);
  auto expected = sample_record(0.25);
  expected.run_id = 1;
  CHECK(rows[0] == expected);
  CHECK(rows[1].outcome == results::Outcome::Infeasible);
  CHECK(rows[1].infeasible_reason == "out of memory: needs 143 GiB");
  CHECK(rows[0].cuda_graph == 0);
  CHECK(rows[2].iter_time_s == 0.5);
  CHECK(rows[2].cuda_graph == 1);
  CHECK(results::read_scenario_text(path, 2) == "scenario: b");
}

TEST_CASE("results::append_runs refuses a corrupt or foreign file and leaves it untouched", "[results]")
{
  const auto dir = fresh_dir("corrupt");
  const auto garbage = dir / "garbage.h5";
  std::ofstream(garbage) << "this is not HDF5";
  CHECK_THROWS_WITH(results::append_runs(garbage.string(), {{sample_record(1), ""}}, "test"),
                    garbage.string() + ": not an HDF5 file (corrupt, truncated, or another format)");
  CHECK(file_bytes(garbage) == "this is not HDF5");

  // A valid results file cut in half, as a crash of a non-atomic writer would leave it.
  const auto good = dir / "good.h5";
  results::append_runs(good.string(), {{sample_record(1), ""}}, "test");
  const std::string bytes = file_bytes(good);
  const auto truncated = dir / "truncated.h5";
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK_THROWS_AS(results::read_runs(truncated.string()), results::ResultsFileError);
  CHECK_THROWS_AS(results::append_runs(truncated.string(), {{sample_record(1), ""}}, "test"), results::ResultsFileError);
  CHECK(file_bytes(truncated) == bytes.substr(0, bytes.size() / 2));
  CHECK(fs::directory_iterator(dir) != fs::directory_iterator()); // no temporary left behind:
  for (const auto& entry : fs::directory_iterator(dir))
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("results::read_runs names what is wrong with an HDF5 file that is not ours", "[results]")
{
  const auto dir = fresh_dir("foreign");
  const auto foreign = dir / "foreign.h5";
  {
    const hid_t file = H5Fcreate(foreign.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t n = 4;
    const hid_t space = H5Screate_simple(1, &n, nullptr);
    const hid_t dataset = H5Dcreate2(file, "measurements", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(dataset);
    H5Sclose(space);
    H5Fclose(file);
  }
  const std::string before = file_bytes(foreign);
  CHECK_THROWS_WITH(results::read_runs(foreign.string()), foreign.string() + ": not a gpuscale results file (no /runs table)");
  CHECK_THROWS_AS(results::append_runs(foreign.string(), {{sample_record(1), ""}}, "test"), results::ResultsFileError);
  CHECK(file_bytes(foreign) == before);

  const auto empty = dir / "empty.h5";
  results::append_runs(empty.string(), {}, "test");
  CHECK(results::read_runs(empty.string()).empty());
  CHECK_THROWS_WITH(results::read_scenario_text(empty.string(), 7), empty.string() + ": no scenario text for run 7");
}

namespace {

/// An HDF5 file whose /runs is a dataset of doubles, with an optional schema_version attribute.
void write_foreign_runs(const fs::path& path, std::optional<long long> schema_version)
{
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hsize_t n = 2;
  const hid_t space = H5Screate_simple(1, &n, nullptr);
  const hid_t dataset = H5Dcreate2(file, "runs", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (schema_version) {
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const hid_t attribute = H5Acreate2(dataset, "schema_version", H5T_NATIVE_LLONG, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attribute, H5T_NATIVE_LLONG, &*schema_version);
    H5Aclose(attribute);
    H5Sclose(scalar);
  }
  H5Dclose(dataset);
  H5Sclose(space);
  H5Fclose(file);
}

} // namespace

TEST_CASE("results::read_runs and append_runs say why a /runs table is not theirs, and touch nothing", "[results]")
{
  const auto dir = fresh_dir("not-ours");
  const auto no_attribute = dir / "no_attribute.h5";
  const auto newer = dir / "newer.h5";
  const auto other_columns = dir / "other_columns.h5";
  const auto empty = dir / "empty.h5";
  write_foreign_runs(no_attribute, std::nullopt);
  write_foreign_runs(newer, 99);
  write_foreign_runs(other_columns, results::kSchemaVersion);
  std::ofstream(empty).close();
  const std::vector<std::pair<fs::path, std::string>> cases{
      {no_attribute, ": not a gpuscale results file (/runs has no 'schema_version' attribute)"},
      {newer, ": results schema version 99, this gpuscale reads " + std::to_string(results::kSchemaVersion)},
      {other_columns, ": /runs has unexpected columns for schema version " + std::to_string(results::kSchemaVersion)},
      {empty, ": not an HDF5 file (corrupt, truncated, or another format)"},
  };
  for (const auto& [path, message] : cases) {
    INFO(path);
    const std::string before = file_bytes(path);
    CHECK_THROWS_WITH(results::read_runs(path.string()), path.string() + message);
    CHECK_THROWS_WITH(results::append_runs(path.string(), {{sample_record(1), ""}}, "test"), path.string() + message);
    CHECK(file_bytes(path) == before);
  }
  for (const auto& entry : fs::directory_iterator(dir))
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
}

namespace {

/// The column names docs/RESULTS.md documents, by "## " section: the first cell, in backquotes, of
/// every table row.
std::map<std::string, std::vector<std::string>> documented_columns(const fs::path& doc)
{
  std::ifstream in(doc);
  REQUIRE(in);
  std::map<std::string, std::vector<std::string>> names;
  std::string section;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## ", 0) == 0)
      section = line.substr(3);
    if (line.rfind("| `", 0) != 0)
      continue;
    const auto end = line.find('`', 3);
    if (end != std::string::npos)
      names[section].push_back(line.substr(3, end - 3));
  }
  return names;
}

} // namespace

TEST_CASE("results: docs/RESULTS.md documents every column of every table once and no column that is not written",
          "[results]")
{
  const auto documented = documented_columns(fs::path(GPUSCALE_SOURCE_DIR) / "docs" / "RESULTS.md");
  const std::map<std::string, std::vector<std::string>> written{
      {"/runs columns", results::run_column_names()},
      {"/mlperf_runs columns", results::mlperf_run_column_names()},
      {"/mlperf_scores columns", results::mlperf_score_column_names()}};
  CHECK(documented.size() == written.size());
  for (const auto& [section, columns] : written) {
    INFO("section: ## " << section);
    REQUIRE(documented.count(section) == 1);
    const auto& listed = documented.at(section);
    std::vector<std::string> undocumented, not_written, twice;
    for (const auto& name : columns)
      if (std::count(listed.begin(), listed.end(), name) == 0)
        undocumented.push_back(name);
    for (const auto& name : listed) {
      if (std::find(columns.begin(), columns.end(), name) == columns.end())
        not_written.push_back(name);
      if (std::count(listed.begin(), listed.end(), name) > 1 && std::find(twice.begin(), twice.end(), name) == twice.end())
        twice.push_back(name);
    }
    CHECK(undocumented == std::vector<std::string>{});
    CHECK(not_written == std::vector<std::string>{});
    CHECK(twice == std::vector<std::string>{});
    CHECK(listed.size() == columns.size());
  }
}
