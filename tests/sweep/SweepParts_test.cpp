// The parts of `gpuscale sweep`: the journal, the batched writer, the progress line.

#include "sim/run/SimulationCost.hpp"
#include "sim/sweep/SweepJournal.hpp"
#include "sim/app/SweepProgress.hpp"
#include "sim/sweep/SweepResultsWriter.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <unistd.h>

using namespace gpuscale;
namespace fs = std::filesystem;

namespace {

fs::path fresh_directory(const std::string& name)
{
  const fs::path dir = fs::temp_directory_path() / ("gpuscale-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

results::RunToWrite run_at(std::int64_t point)
{
  results::RunRecord r;
  r.sweep_id = "00000000000000aa";
  r.sweep_point = point;
  r.workload = "w" + std::to_string(point);
  r.iter_time_s = 0.5 * static_cast<double>(point);
  return {r, "# point " + std::to_string(point) + "\n"};
}

} // namespace

TEST_CASE("sweep::SweepJournal gives back complete records after a crash and drops a torn tail", "[app][sweep]")
{
  const fs::path dir = fresh_directory("journal");
  const std::string results = (dir / "r.h5").string();
  {
    sweep::SweepJournal journal(results, "00000000000000aa");
    CHECK(journal.recovered().empty());
    journal.append(run_at(3));
    journal.append(run_at(7));
    // Destroyed without remove(): as if the process had been killed.
  }
  {
    std::ofstream torn(sweep::SweepJournal::path_for(results), std::ios::app | std::ios::binary);
    torn << "GPSJ\x10\x00"; // a record cut short inside write()
  }
  {
    sweep::SweepJournal journal(results, "00000000000000aa");
    REQUIRE(journal.recovered().size() == 2);
    CHECK(journal.recovered()[0].record == run_at(3).record);
    CHECK(journal.recovered()[1].scenario_text == run_at(7).scenario_text);
    CHECK_THROWS_WITH(sweep::SweepJournal(results, "00000000000000aa"), Catch::Contains("is locked"));
    journal.clear();
  }
  CHECK_THROWS_WITH(sweep::SweepJournal(results, "00000000000000bb"), Catch::Contains("holds rows of another sweep"));
  sweep::SweepJournal(results, "00000000000000aa").remove();
  CHECK_FALSE(fs::exists(sweep::SweepJournal::path_for(results)));
  fs::remove_all(dir);
}

TEST_CASE("sweep::SweepResultsWriter appends in batches and empties the journal after each", "[app][sweep]")
{
  const fs::path dir = fresh_directory("writer");
  const std::string results = (dir / "r.h5").string();
  sweep::SweepJournal journal(results, "00000000000000aa");
  sweep::SweepResultsWriter writer(results, journal, {3, std::chrono::hours(1)}, "test");
  writer.add(run_at(0));
  writer.add(run_at(1));
  CHECK_FALSE(fs::exists(results)); // waiting in the journal
  writer.add(run_at(2));
  CHECK(results::read_runs(results).size() == 3);
  CHECK(writer.appends() == 1);
  writer.add(run_at(3));
  writer.flush();
  CHECK(results::read_runs(results).size() == 4);
  CHECK(writer.appends() == 2);
  fs::remove_all(dir);
}

TEST_CASE("app::SweepProgress shows done/total, rate and an ETA from the cost done", "[app][sweep]")
{
  CHECK(app::SweepProgress::format_line(25, 100, 0, 5.0, 0.25) ==
        "[######..................]  25/100  25%  5.0 sim/s  elapsed 0:00:05  ETA 0:00:15");
  // Half the points but a tenth of the cost in 5 s: 45 s to go, not 5.
  CHECK(app::SweepProgress::format_line(50, 100, 0, 5.0, 0.1) ==
        "[############............]  50/100  50%  10.0 sim/s  elapsed 0:00:05  ETA 0:00:45");
  CHECK(app::SweepProgress::format_line(0, 100, 0, 1.0, 0.0) ==
        "[........................]   0/100   0%  0.0 sim/s  elapsed 0:00:01  ETA ?");
  CHECK(app::SweepProgress::format_line(100, 100, 2, 20.0, 1.0) ==
        "[########################] 100/100 100%  5.0 sim/s  elapsed 0:00:20  ETA done  failed 2");
}

TEST_CASE("run::simulation_cost_units is GPUs x layers x micro-batches per step", "[app][sweep]")
{
  model::WorkloadTrace workload;
  workload.layers.resize(24);
  model::Scenario s;
  s.gpus = 16;
  s.global_batch_size = 512;
  s.micro_batch_size = 8;
  CHECK(run::simulation_cost_units(s, workload) == 16.0 * 24 * 4); // 512 / (8 x 16) = 4 micro-batches
  s.tensor_parallel = 4; // 4 replicas: 16 micro-batches each, on the same 16 GPU actors
  CHECK(run::simulation_cost_units(s, workload) == 16.0 * 24 * 16);
  s.tensor_parallel = 1;
  s.batch_per_rank.assign(16, {4, 8}); // uneven: the slowest rank's micro-batch count sets the step
  s.batch_per_rank[3] = {2, 16};
  CHECK(run::simulation_cost_units(s, workload) == 16.0 * 24 * 16);
}
