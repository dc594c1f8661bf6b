// `gpuscale sweep` and `gpuscale merge` as processes: kill -9 and Ctrl-C half-way then --resume give the
// table of an uninterrupted sweep (nothing redone, nothing lost, nothing twice); shards merged give the
// local sweep's table; merge refuses mixed or overlapping files and lists missing points.

#include "sim/sweep/SweepJournal.hpp"
#include "sim/results/ResultsFile.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

using namespace gpuscale;
namespace fs = std::filesystem;

namespace {

const std::string kGpuscale = GPUSCALE_BINARY_DIR "/gpuscale";
const std::string kResumeSweep = GPUSCALE_SOURCE_DIR "/tests/data/sweeps/resume.yaml";   // 24 points, ~0.2 s each
const std::string kSmallSweep = GPUSCALE_SOURCE_DIR "/tests/data/sweeps/small.yaml";     // 6 fast points

fs::path fresh_directory(const std::string& name)
{
  const fs::path dir = fs::temp_directory_path() / ("gpuscale-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Starts gpuscale with stdout and stderr into `log`.
pid_t start(const std::vector<std::string>& args, const fs::path& log)
{
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    std::vector<char*> argv{const_cast<char*>(kGpuscale.c_str())};
    for (const auto& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(kGpuscale.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

int wait_for(pid_t pid)
{
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string read_file(const fs::path& path)
{
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Ran {
  int status = 0;
  std::string output;
};

Ran run_gpuscale(const std::vector<std::string>& args, const fs::path& dir)
{
  const fs::path log = dir / "command.log";
  const int status = wait_for(start(args, log));
  return {status, read_file(log)};
}

/// Rows without their file position, by sweep point: what must match between two ways of running a sweep.
std::vector<results::RunRecord> table(const fs::path& path)
{
  auto rows = results::read_runs(path.string());
  for (auto& row : rows)
    row.run_id = 0;
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.sweep_point < b.sweep_point; });
  return rows;
}

std::size_t distinct_points(const std::vector<results::RunRecord>& rows)
{
  std::set<std::int64_t> points;
  for (const auto& r : rows)
    points.insert(r.sweep_point);
  return points.size();
}

/// Points of the complete records in a journal (framing as in SweepJournal.hpp), read without its lock.
std::set<std::int64_t> journal_points(const fs::path& path)
{
  const std::string content = read_file(path);
  std::set<std::int64_t> points;
  std::size_t at = content.find('\n');
  if (at == std::string::npos)
    return points;
  ++at;
  while (at + 16 <= content.size()) {
    std::uint32_t size = 0, row_bytes = 0;
    std::memcpy(&size, content.data() + at + 4, 4);
    if (at + 16 + size > content.size() || size < 4)
      break;
    std::memcpy(&row_bytes, content.data() + at + 16, 4);
    points.insert(results::decode_run_record(content.substr(at + 20, row_bytes)).sweep_point);
    at += 16 + size;
  }
  return points;
}

std::size_t journal_records(const fs::path& path)
{
  return journal_points(path).size();
}

std::set<std::int64_t> points_in(const fs::path& path)
{
  std::set<std::int64_t> points;
  try {
    if (fs::exists(path))
      for (const auto& row : results::read_runs(path.string()))
        points.insert(row.sweep_point);
  } catch (const results::ResultsFileError&) {
  }
  return points;
}

std::size_t rows_in(const fs::path& path)
{
  try {
    return fs::exists(path) ? results::read_runs(path.string()).size() : 0;
  } catch (const results::ResultsFileError&) {
    return 0;
  }
}

/// Waits until `done()` or the timeout; returns whether it happened.
template <typename Condition>
bool wait_until(Condition done, std::chrono::seconds timeout = std::chrono::seconds(120))
{
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

/// The numbers in "output     X: N point(s) already done (K recovered from the journal), M to run ...".
struct ResumeLine {
  long already_done = -1;
  long recovered = 0;
  long to_run = -1;
};

ResumeLine resume_line(const std::string& output)
{
  ResumeLine line;
  std::smatch m;
  if (std::regex_search(output, m, std::regex(R"((\d+) point\(s\) already done(?: \((\d+) recovered from the journal\))?, (\d+) to run)"))) {
    line.already_done = std::stol(m[1]);
    line.recovered = m[2].matched ? std::stol(m[2]) : 0;
    line.to_run = std::stol(m[3]);
  }
  return line;
}

} // namespace

TEST_CASE("app::sweep killed with SIGKILL half-way resumes to the table of an uninterrupted sweep", "[app][sweep]")
{
  const fs::path dir = fresh_directory("sweep-kill");
  const Ran reference = run_gpuscale({"sweep", kResumeSweep, "-o", (dir / "ref.h5").string(), "-j", "2"}, dir);
  REQUIRE(reference.status == 0);
  const auto expected = table(dir / "ref.h5");
  REQUIRE(expected.size() == 24);

  const fs::path cut = dir / "cut.h5";
  const pid_t pid = start({"sweep", kResumeSweep, "-o", cut.string(), "-j", "2", "--flush-rows", "4"}, dir / "cut.log");
  // Finished points: in the file or in the journal (a row can be in both for a moment: appended, and
  // the journal not yet emptied).
  std::size_t finished = 0;
  REQUIRE(wait_until([&] {
    auto points = points_in(cut);
    for (auto p : journal_points(sweep::SweepJournal::path_for(cut.string())))
      points.insert(p);
    finished = points.size();
    return finished >= 8;
  }));
  ::kill(pid, SIGKILL);
  CHECK(wait_for(pid) == 128 + SIGKILL);
  const std::size_t rows_at_kill = rows_in(cut);
  INFO("finished before the kill: " << finished << ", rows in the file: " << rows_at_kill);
  REQUIRE(rows_at_kill < 24); // really half-way

  const Ran resumed = run_gpuscale({"sweep", kResumeSweep, "-o", cut.string(), "-j", "2", "--resume"}, dir);
  INFO(resumed.output);
  REQUIRE(resumed.status == 0);
  const ResumeLine line = resume_line(resumed.output);
  CHECK(line.already_done >= static_cast<long>(finished)); // nothing finished is redone
  CHECK(line.already_done + line.to_run == 24);
  CHECK(resumed.output.find(std::to_string(line.to_run) + " simulation(s)") != std::string::npos);
  const auto actual = table(cut);
  CHECK(distinct_points(actual) == actual.size()); // no row twice
  CHECK(actual == expected);
  CHECK_FALSE(fs::exists(sweep::SweepJournal::path_for(cut.string())));
  fs::remove_all(dir);
}

TEST_CASE("app::sweep killed before its first append keeps the journal's rows, and resume runs only the rest",
          "[app][sweep]")
{
  const fs::path dir = fresh_directory("sweep-journal");
  REQUIRE(run_gpuscale({"sweep", kResumeSweep, "-o", (dir / "ref.h5").string(), "-j", "2"}, dir).status == 0);
  const fs::path cut = dir / "cut.h5";
  const fs::path journal = sweep::SweepJournal::path_for(cut.string());
  const pid_t pid = start({"sweep", kResumeSweep, "-o", cut.string(), "-j", "2", "--flush-rows", "1000",
                           "--flush-seconds", "1000"},
                          dir / "cut.log");
  std::size_t in_journal = 0;
  REQUIRE(wait_until([&] { return (in_journal = journal_records(journal)) >= 6; }));
  ::kill(pid, SIGKILL);
  wait_for(pid);
  REQUIRE(rows_in(cut) == 0); // everything finished is in the journal only
  in_journal = journal_records(journal);
  REQUIRE(in_journal < 24);

  const Ran resumed = run_gpuscale({"sweep", kResumeSweep, "-o", cut.string(), "-j", "2", "--resume"}, dir);
  INFO(resumed.output);
  REQUIRE(resumed.status == 0);
  const ResumeLine line = resume_line(resumed.output);
  CHECK(line.recovered == static_cast<long>(in_journal));
  CHECK(line.to_run == 24 - static_cast<long>(in_journal));
  CHECK(table(cut) == table(dir / "ref.h5"));
  fs::remove_all(dir);
}

TEST_CASE("app::sweep stops on SIGINT after its running simulations, and --resume completes it", "[app][sweep]")
{
  const fs::path dir = fresh_directory("sweep-sigint");
  REQUIRE(run_gpuscale({"sweep", kResumeSweep, "-o", (dir / "ref.h5").string(), "-j", "2"}, dir).status == 0);
  const fs::path cut = dir / "cut.h5";
  const pid_t pid = start({"sweep", kResumeSweep, "-o", cut.string(), "-j", "2", "--flush-rows", "4"}, dir / "cut.log");
  REQUIRE(wait_until([&] { return rows_in(cut) >= 4; }));
  ::kill(pid, SIGINT); // the parent only, as `kill -INT`; a terminal's Ctrl-C reaches the workers too, which ignore it
  CHECK(wait_for(pid) == 130);
  const std::string log = read_file(dir / "cut.log");
  INFO(log);
  CHECK(log.find("interrupted:") != std::string::npos);
  CHECK(log.find("--resume") != std::string::npos);
  CHECK_FALSE(fs::exists(sweep::SweepJournal::path_for(cut.string()))); // everything finished is in the file
  const std::size_t rows = rows_in(cut);
  CHECK(rows < 24);

  const Ran resumed = run_gpuscale({"sweep", kResumeSweep, "-o", cut.string(), "--resume"}, dir);
  REQUIRE(resumed.status == 0);
  CHECK(resume_line(resumed.output).already_done == static_cast<long>(rows));
  CHECK(table(cut) == table(dir / "ref.h5"));
  fs::remove_all(dir);
}

TEST_CASE("app::sweep shards merged equal the local sweep", "[app][sweep]")
{
  const fs::path dir = fresh_directory("sweep-shards");
  REQUIRE(run_gpuscale({"sweep", kSmallSweep, "-o", (dir / "local.h5").string(), "-j", "2"}, dir).status == 0);
  std::vector<std::string> merge{"merge"};
  for (int i = 0; i < 4; ++i) { // 4 shards of 6 points: sizes 2, 2, 1, 1
    const std::string shard = (dir / ("shard-" + std::to_string(i) + ".h5")).string();
    const Ran ran = run_gpuscale({"sweep", kSmallSweep, "-o", shard, "--shard", std::to_string(i) + "/4", "-j", "1"}, dir);
    INFO(ran.output);
    REQUIRE(ran.status == 0);
    CHECK(rows_in(shard) == (i < 2 ? 2u : 1u));
    merge.push_back(shard);
  }
  merge.insert(merge.end(), {"-o", (dir / "merged.h5").string()});
  const Ran merged = run_gpuscale(merge, dir);
  INFO(merged.output);
  REQUIRE(merged.status == 0);
  CHECK(table(dir / "merged.h5") == table(dir / "local.h5"));
  // The merged file is a whole sweep: resuming it has nothing left to do.
  const Ran resumed = run_gpuscale({"sweep", kSmallSweep, "-o", (dir / "merged.h5").string(), "--resume"}, dir);
  CHECK(resume_line(resumed.output).to_run == 0);
  fs::remove_all(dir);
}

TEST_CASE("app::merge refuses other sweeps and overlapping shards, and lists the missing points", "[app][sweep]")
{
  const fs::path dir = fresh_directory("merge-errors");
  const std::string a = (dir / "a.h5").string(), b = (dir / "b.h5").string(), c = (dir / "c.h5").string();
  const std::string other = (dir / "other.h5").string();
  REQUIRE(run_gpuscale({"sweep", kSmallSweep, "-o", a, "--shard", "0/3"}, dir).status == 0);
  REQUIRE(run_gpuscale({"sweep", kSmallSweep, "-o", b, "--shard", "1/3"}, dir).status == 0);
  REQUIRE(run_gpuscale({"sweep", kSmallSweep, "-o", c, "--shard", "1/3"}, dir).status == 0);
  {
    // The same points under another sweep id: the text differs (absolute paths).
    std::string text = read_file(kSmallSweep);
    for (auto at = text.find("../../../"); at != std::string::npos; at = text.find("../../../"))
      text.replace(at, 9, GPUSCALE_SOURCE_DIR "/");
    std::ofstream(dir / "other.yaml") << text;
  }
  REQUIRE(run_gpuscale({"sweep", (dir / "other.yaml").string(), "-o", other, "--shard", "2/3"}, dir).status == 0);
  REQUIRE(run_gpuscale({"sweep", kSmallSweep, "-o", (dir / "whole.h5").string()}, dir).status == 0);

  const Ran missing = run_gpuscale({"merge", a, b, "-o", (dir / "m.h5").string()}, dir);
  CHECK(missing.status == 1);
  CHECK(missing.output.find("missing    2 point(s)") != std::string::npos);
  CHECK(missing.output.find("shard 2/3 (no file given)") != std::string::npos);
  CHECK(rows_in(dir / "m.h5") == 4); // written anyway, for inspection
  CHECK(run_gpuscale({"merge", a, b, "-o", (dir / "m.h5").string(), "--allow-missing"}, dir).status == 0);

  const Ran overlap = run_gpuscale({"merge", a, b, c, "-o", (dir / "o.h5").string()}, dir);
  CHECK(overlap.status == 2);
  CHECK(overlap.output.find("is in both") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "o.h5"));

  const Ran mixed = run_gpuscale({"merge", a, (dir / "whole.h5").string(), "-o", (dir / "x.h5").string()}, dir);
  CHECK(mixed.status == 2);
  CHECK(mixed.output.find("split the sweep differently") != std::string::npos);

  const Ran foreign = run_gpuscale({"merge", a, b, other, "-o", (dir / "f.h5").string()}, dir);
  CHECK(foreign.status == 2);
  CHECK(foreign.output.find("the files come from different sweeps") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("app::sweep refuses an output that already holds the sweep unless --resume, and bad --shard", "[app][sweep]")
{
  const fs::path dir = fresh_directory("sweep-refuse");
  const std::string out = (dir / "r.h5").string();
  REQUIRE(run_gpuscale({"sweep", kSmallSweep, "-o", out}, dir).status == 0);
  const Ran again = run_gpuscale({"sweep", kSmallSweep, "-o", out}, dir);
  CHECK(again.status == 2);
  CHECK(again.output.find("already holds 6 rows of this sweep") != std::string::npos);
  CHECK(rows_in(out) == 6);
  const Ran shard = run_gpuscale({"sweep", kSmallSweep, "-o", out, "--shard", "3/3"}, dir);
  CHECK(shard.status == 2);
  CHECK(shard.output.find("--shard expects i/N with 0 <= i < N") != std::string::npos);
  const Ran wrong_shard = run_gpuscale({"sweep", kSmallSweep, "-o", out, "--shard", "1/2", "--resume"}, dir);
  CHECK(wrong_shard.status == 2);
  CHECK(wrong_shard.output.find("holds all points of this sweep, not shard 1/2") != std::string::npos);
  fs::remove_all(dir);
}
