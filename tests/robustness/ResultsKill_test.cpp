// A results file survives its writer being killed at any moment: a child appends rows in a loop, the
// parent SIGKILLs it after a random delay, many times; after every kill the file is a complete results
// file holding the rows of every append that finished and of none that did not.

#include "sim/results/ResultsFile.hpp"

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

using namespace gpuscale;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kRowsPerAppend = 3;

results::RunRecord row()
{
  results::RunRecord r;
  r.scenario = "kill-test";
  r.platform = "p";
  r.workload = "w";
  r.gpus = 8;
  r.iter_time_s = 0.125;
  r.infeasible_reason = std::string(300, 'x'); // long strings: a torn row would show
  return r;
}

/// Appends kRowsPerAppend rows again and again until killed. Never returns.
[[noreturn]] void append_forever(const std::string& path)
{
  for (;;) {
    std::vector<results::RunToWrite> runs(kRowsPerAppend, {row(), "scenario:\n  name: kill-test\n"});
    results::append_runs(path, runs, "kill-test");
  }
}

/// Every row as written, run ids 1..n in order, the last one's scenario text readable.
void check_complete(const std::string& path, std::size_t rows)
{
  const auto records = results::read_runs(path);
  REQUIRE(records.size() == rows);
  for (std::size_t i = 0; i < records.size(); ++i) {
    auto expected = row();
    expected.run_id = static_cast<std::int64_t>(i + 1);
    REQUIRE(records[i] == expected);
  }
  if (rows > 0)
    REQUIRE(results::read_scenario_text(path, static_cast<std::int64_t>(rows)) == "scenario:\n  name: kill-test\n");
}

std::size_t temporaries_in(const fs::path& dir)
{
  std::size_t count = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    count += entry.path().filename().string().find(".tmp.") != std::string::npos ? 1 : 0;
  return count;
}

} // namespace

TEST_CASE("results::append_runs leaves the old or the new complete file when its writer is SIGKILLed at random points",
          "[results][robustness]")
{
  const fs::path dir = fs::temp_directory_path() / ("gpuscale-kill-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "results.h5").string();
  results::append_runs(path, {{row(), "scenario:\n  name: kill-test\n"}}, "kill-test");
  std::size_t rows = 1; // rows of the appends known to be complete

  // Kills must land both inside appends and after whole ones, whatever this build's speed (an
  // append under ASan on a slow machine takes longer than one in Release): the delays span a few
  // appends as timed here, and at least 40 ms.
  const auto start = std::chrono::steady_clock::now();
  {
    const std::vector<results::RunToWrite> probe(kRowsPerAppend, {row(), "scenario:\n  name: kill-test\n"});
    const fs::path probe_path = dir / "probe.h5";
    results::append_runs(probe_path.string(), {{row(), "scenario:\n  name: kill-test\n"}}, "kill-test");
    for (int i = 0; i < 3; ++i)
      results::append_runs(probe_path.string(), probe, "kill-test");
    fs::remove(probe_path);
  }
  const auto append_us =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count() / 4;
  std::mt19937 random(20240611); // fixed seed: the same delays on every run of a build as fast
  std::uniform_int_distribution<long long> delay_us(0, std::max<long long>(40'000, 4 * append_us));
  int kills = 0;
  int grew = 0;
  for (int round = 0; round < 150; ++round) {
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0)
      append_forever(path);
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(random)));
    ::kill(child, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE((WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL));
    ++kills;

    // Old file, or the old file plus whole appends: never a torn or truncated one.
    const std::size_t now = results::read_runs(path).size();
    INFO("round " << round << ": " << rows << " rows before the kill, " << now << " after");
    REQUIRE(now >= rows);
    REQUIRE((now - rows) % kRowsPerAppend == 0);
    grew += now > rows ? 1 : 0;
    rows = now;
    check_complete(path, rows);
  }
  CHECK(kills == 150);
  CHECK(grew > 0);          // some kills came after an append had finished...
  CHECK(grew < kills);      // ...and some in the middle of the first one

  // The copies killed writers left behind are cleared by the next append, which goes through.
  results::append_runs(path, {{row(), "scenario:\n  name: kill-test\n"}}, "kill-test");
  check_complete(path, rows + 1);
  CHECK(temporaries_in(dir) == 0);
  fs::remove_all(dir);
}
