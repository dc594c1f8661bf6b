#include "sim/run/ParallelRuns.hpp"

#include "sim/run/ScenarioRunner.hpp"
#include "sim/run/SweepWorkerPool.hpp"
#include "sim/results/ResultsFile.hpp"

#include <chrono>

namespace gpuscale::run {

std::vector<ParallelRun> run_scenarios_parallel(const std::vector<model::ResolvedScenario>& scenarios, int workers,
                                                const std::function<void(std::size_t, std::size_t)>& progress)
{
  using Clock = std::chrono::steady_clock;
  std::vector<ParallelRun> runs(scenarios.size());
  std::vector<Clock::time_point> started(scenarios.size());
  SweepWorkerPool pool(workers);
  std::size_t next = 0, done = 0;
  while (done < scenarios.size()) {
    while (next < scenarios.size() && pool.has_free_slot()) {
      const std::size_t job = next++;
      started[job] = Clock::now();
      pool.start(static_cast<std::int64_t>(job), [&scenarios, job] {
        return results::encode_run_record(run_scenario(scenarios[job], false).record);
      });
    }
    for (auto& finished : pool.wait(std::chrono::milliseconds(200))) {
      auto& run = runs[static_cast<std::size_t>(finished.job)];
      run.wall_s = std::chrono::duration<double>(Clock::now() - started[static_cast<std::size_t>(finished.job)]).count();
      if (finished.ok)
        run.record = results::decode_run_record(finished.payload);
      else
        run.error = finished.payload;
      ++done;
      if (progress)
        progress(done, scenarios.size());
    }
  }
  return runs;
}

} // namespace gpuscale::run
