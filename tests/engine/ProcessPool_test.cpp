// The process pool every simulation runs in: bounded concurrency, the result frame, failures of a
// child (exception, crash, kill) and the single isolated run built on it.

#include "sim/engine/IsolatedRun.hpp"
#include "sim/engine/ProcessPool.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <unistd.h>

using namespace gpuscale;

TEST_CASE("engine::ProcessPool runs jobs in child processes, at most N at a time", "[engine][pool]")
{
  engine::ProcessPool pool(2);
  std::map<std::int64_t, engine::ProcessPool::Finished> finished;
  std::int64_t next = 0;
  std::size_t most_running = 0;
  while (next < 6 || pool.running() > 0) {
    while (pool.has_free_slot() && next < 6) {
      const std::int64_t job = next++;
      pool.start(job, [job] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return "pid " + std::to_string(::getpid()) + " job " + std::to_string(job);
      });
    }
    most_running = std::max(most_running, pool.running());
    for (auto& f : pool.wait(std::chrono::milliseconds(500)))
      finished[f.job] = f;
  }
  CHECK(most_running == 2);
  REQUIRE(finished.size() == 6);
  for (const auto& [job, f] : finished) {
    CHECK(f.ok);
    CHECK(f.payload.find(" job " + std::to_string(job)) != std::string::npos);
    CHECK(f.payload.find("pid " + std::to_string(::getpid()) + " ") == std::string::npos); // not this process
  }
}

TEST_CASE("engine::ProcessPool reports an exception and a crash of a job as failures", "[engine][pool]")
{
  engine::ProcessPool pool(2);
  pool.start(1, []() -> std::string { throw std::runtime_error("ZeRO stage 9 is not simulated yet"); });
  pool.start(2, []() -> std::string { std::abort(); });
  std::map<std::int64_t, engine::ProcessPool::Finished> finished;
  while (pool.running() > 0)
    for (auto& f : pool.wait(std::chrono::milliseconds(500)))
      finished[f.job] = f;
  CHECK_FALSE(finished[1].ok);
  CHECK(finished[1].payload == "ZeRO stage 9 is not simulated yet");
  CHECK_FALSE(finished[2].ok);
  CHECK(finished[2].payload.find("killed by signal " + std::to_string(SIGABRT)) != std::string::npos);
  pool.start(3, [] {
    std::this_thread::sleep_for(std::chrono::seconds(30));
    return std::string("late");
  });
  const auto killed = pool.kill_all();
  REQUIRE(killed.size() == 1);
  CHECK(killed.front().killed_by_pool);
}

TEST_CASE("engine::run_all returns every result in input order and reports progress as each ends", "[engine][pool]")
{
  std::vector<std::function<std::string()>> jobs;
  for (int i = 0; i < 5; ++i)
    jobs.push_back([i] {
      std::this_thread::sleep_for(std::chrono::milliseconds(10 * (5 - i))); // later jobs end first
      if (i == 3)
        throw std::runtime_error("job 3 refused");
      return std::string(static_cast<std::size_t>(70000 * i), 'x') + std::to_string(i); // > one pipe buffer
    });
  std::vector<std::size_t> done_counts;
  const auto results = engine::run_all(jobs, 2, [&](const engine::ProcessPool::Finished& f, std::size_t done, std::size_t total) {
    CHECK(total == 5);
    CHECK(f.wall_s > 0);
    done_counts.push_back(done);
  });
  CHECK(done_counts == std::vector<std::size_t>{1, 2, 3, 4, 5});
  REQUIRE(results.size() == 5);
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(results[i].job == static_cast<std::int64_t>(i));
    if (i == 3) {
      CHECK_FALSE(results[i].ok);
      CHECK(results[i].payload == "job 3 refused");
    } else {
      CHECK(results[i].ok);
      CHECK(results[i].payload == std::string(70000 * i, 'x') + std::to_string(i));
    }
  }
}

TEST_CASE("engine::run_isolated returns the result of the child and rethrows its failures", "[engine][pool]")
{
  CHECK(engine::run_isolated([] { return "pid " + std::to_string(::getpid()); }) != "pid " + std::to_string(::getpid()));
  CHECK_THROWS_WITH(engine::run_isolated([]() -> std::string { throw std::invalid_argument("no such GPU"); }),
                    "no such GPU");
  CHECK_THROWS_WITH(engine::run_isolated([]() -> std::string {
                      ::raise(SIGKILL);
                      return "";
                    }),
                    "simulation process killed by signal " + std::to_string(SIGKILL) + " (" + strsignal(SIGKILL) + ")");
  CHECK_THROWS_WITH(engine::run_isolated([]() -> std::string { ::_exit(7); }),
                    "simulation process exited with status 7 without a result");
}
