#include "sim/sweep/SweepExecution.hpp"

#include "sim/engine/ProcessPool.hpp"
#include "sim/run/ScenarioRunner.hpp"
#include "sim/run/SimulationCost.hpp"

#include <chrono>
#include <csignal>
#include <map>

namespace gpuscale::sweep {
namespace {

// Signal handlers can only set flags; the loop below reads them.
volatile std::sig_atomic_t g_interrupts = 0;
volatile std::sig_atomic_t g_terminated = 0;

void on_interrupt(int)
{
  g_interrupts = g_interrupts + 1;
}

void on_terminate(int signal)
{
  g_terminated = signal;
}

/// Installs the sweep's handlers for its lifetime and restores the previous ones afterwards.
class SignalScope {
public:
  SignalScope()
  {
    g_interrupts = 0;
    g_terminated = 0;
    install(SIGINT, on_interrupt, previous_int_);
    install(SIGTERM, on_terminate, previous_term_);
    install(SIGHUP, on_terminate, previous_hup_);
  }
  ~SignalScope()
  {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
    sigaction(SIGHUP, &previous_hup_, nullptr);
  }
  SignalScope(const SignalScope&) = delete;
  SignalScope& operator=(const SignalScope&) = delete;

private:
  static void install(int signal, void (*handler)(int), struct sigaction& previous)
  {
    struct sigaction action {};
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    // SA_RESTART keeps file I/O going; poll() is never restarted, so the loop sees the flag at once.
    action.sa_flags = SA_RESTART;
    sigaction(signal, &action, &previous);
  }

  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
  struct sigaction previous_hup_ {};
};

/// What a point is expected to cost: nothing if it does not fit in memory (it is a memory check, not a
/// simulation), else simulation_cost_units.
double expected_cost_units(const model::SweepPoint& point)
{
  const auto precision = point.scenario.precision.value_or(point.workload().precision);
  if (!run::tightest_memory(point.platform(), point.workload(), point.scenario, precision).memory.fits())
    return 0;
  return run::simulation_cost_units(point.scenario, point.workload());
}

} // namespace

SweepExecutionReport execute_sweep(const std::vector<const model::SweepPoint*>& points, const std::string& sweep_id,
                                   int workers, SweepResultsWriter& writer, SweepObserver& observer)
{
  const auto start = std::chrono::steady_clock::now();
  SweepExecutionReport report;
  SignalScope signals;
  engine::ProcessPool pool(workers);
  std::map<std::int64_t, const model::SweepPoint*> by_index;
  std::map<std::int64_t, double> cost_of;
  double total_cost = 0;
  for (const auto* point : points) {
    by_index[point->index] = point;
    total_cost += cost_of[point->index] = expected_cost_units(*point);
  }
  observer.started(points.size(), total_cost);
  double cost_done = 0;

  std::size_t next = 0;
  bool announced = false;
  auto handle = [&](const engine::ProcessPool::Finished& finished) {
    if (finished.killed_by_pool)
      return; // abandoned on request: not a failure, redone by --resume
    if (!finished.ok) {
      cost_done += cost_of.at(finished.job);
      report.failed.push_back({finished.job, finished.payload});
      return;
    }
    results::RunToWrite run{results::decode_run_record(finished.payload), by_index.at(finished.job)->scenario_text};
    if (run.record.outcome == results::Outcome::Infeasible)
      observer.discounted(cost_of.at(finished.job)); // a memory check, not a simulation: it cost nothing
    else
      cost_done += cost_of.at(finished.job);
    run.record.sweep_id = sweep_id;
    run.record.sweep_point = finished.job;
    (run.record.outcome == results::Outcome::Ok ? report.ok : report.infeasible) += 1;
    ++report.finished;
    writer.add(std::move(run));
  };

  while (next < points.size() || pool.running() > 0) {
    const bool stopping = g_interrupts > 0 || g_terminated != 0;
    if (stopping)
      report.stopped_by = g_terminated != 0 ? static_cast<int>(g_terminated) : SIGINT;
    if (stopping && pool.running() == 0) {
      report.interrupted = true;
      break;
    }
    if (stopping && !announced) {
      announced = true;
      report.interrupted = true;
      if (g_terminated == 0 && pool.running() > 0)
        observer.interrupted(pool.running());
    }
    if (g_interrupts > 1 || g_terminated != 0) {
      for (const auto& finished : pool.kill_all())
        handle(finished);
      break;
    }
    while (!stopping && pool.has_free_slot() && next < points.size()) {
      const model::SweepPoint* point = points[next++];
      pool.start(point->index, [point] {
        return results::encode_run_record(run::run_scenario(point->resolve(), false).record);
      });
    }
    for (const auto& finished : pool.wait(std::chrono::milliseconds(200)))
      handle(finished);
    writer.flush_if_due();
    observer.progressed(report.finished + report.failed.size(), report.failed.size(), cost_done);
  }
  writer.flush();
  observer.finished(report.finished + report.failed.size(), report.failed.size(), cost_done);
  report.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

} // namespace gpuscale::sweep
