#include "sim/results/ResultsFile.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;

namespace {

const std::string kGpuscale = GPUSCALE_BINARY_DIR "/gpuscale";

/// stdout of `command`; fails the test on a non-zero exit.
std::string run(const std::string& command)
{
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe))
    out.append(buffer, n);
  REQUIRE(::pclose(pipe) == 0);
  return out;
}

} // namespace

TEST_CASE("app: gpuscale plan writes plan, uniform and subset rows and prints a batch_allocation that runs",
          "[app][planner]")
{
  const fs::path dir = fs::path(GPUSCALE_BINARY_DIR) / "test-scratch" / "plan-command";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string scenario = GPUSCALE_SOURCE_DIR "/scenarios/poplar/bert-large-v100-t4.yaml";
  const std::string results = (dir / "plan.h5").string();
  const std::string out = run(kGpuscale + " plan " + scenario + " -o " + results);

  const auto rows = gpuscale::results::read_runs(results);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].scenario == "poplar-bert-large-v100-t4/zero0-plan");
  CHECK(rows[1].scenario == "poplar-bert-large-v100-t4/zero0-uniform");
  CHECK(rows[2].scenario == "poplar-bert-large-v100-t4/zero0-subset");
  for (const auto& row : rows)
    CHECK(row.global_batch_size == 1024);
  CHECK(rows[0].iter_time_s <= rows[1].iter_time_s);
  CHECK(rows[0].iter_time_s <= rows[2].iter_time_s);

  // The printed block, pasted into the scenario, reproduces the plan's simulated iteration.
  const auto start = out.find("  batch_allocation:\n");
  REQUIRE(start != std::string::npos);
  const auto end = out.find("\n\n", start);
  const std::string block = out.substr(start, end - start + 1);
  std::ifstream in(scenario);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string relative = "../../";
  for (auto at = text.find(relative); at != std::string::npos; at = text.find(relative))
    text.replace(at, relative.size(), GPUSCALE_SOURCE_DIR "/");
  const fs::path pasted = dir / "pasted.yaml";
  std::ofstream(pasted) << text << block;
  const std::string again = (dir / "again.h5").string();
  run(kGpuscale + " run " + pasted.string() + " -o " + again + " > /dev/null");
  const auto rerun = gpuscale::results::read_runs(again);
  REQUIRE(rerun.size() == 1);
  CHECK(rerun[0].iter_time_s == Approx(rows[0].iter_time_s).epsilon(1e-9));
}
