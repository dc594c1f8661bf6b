#include "sim/run/ParallelRuns.hpp"

#include "sim/engine/ProcessPool.hpp"
#include "sim/run/ScenarioRunner.hpp"
#include "sim/results/ResultsFile.hpp"

namespace gpuscale::run {

std::vector<ParallelRun> run_scenarios_parallel(const std::vector<model::ResolvedScenario>& scenarios, int workers,
                                                const std::function<void(std::size_t, std::size_t)>& progress)
{
  std::vector<std::function<std::string()>> jobs;
  jobs.reserve(scenarios.size());
  for (const auto& scenario : scenarios)
    jobs.push_back([&scenario] { return results::encode_run_record(run_scenario(scenario, false).record); });
  std::vector<ParallelRun> runs(scenarios.size());
  engine::run_all(jobs, workers, [&](const engine::ProcessPool::Finished& finished, std::size_t done, std::size_t total) {
    auto& run = runs[static_cast<std::size_t>(finished.job)];
    run.wall_s = finished.wall_s;
    if (finished.ok)
      run.record = results::decode_run_record(finished.payload);
    else
      run.error = finished.payload;
    if (progress)
      progress(done, total);
  });
  return runs;
}

} // namespace gpuscale::run
