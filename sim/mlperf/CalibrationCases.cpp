#include "sim/mlperf/CalibrationCases.hpp"

#include "sim/mlperf/MlperfScenarioBuilder.hpp"
#include "sim/run/ParallelRuns.hpp"
#include "sim/config/ConfigError.hpp"
#include "sim/config/MlperfRepositoryReader.hpp"
#include "sim/uncertainty/SimulatedCase.hpp"
#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gpuscale::mlperf {
namespace {

/// The runs' start times: identical sets mean the same runs published twice.
std::vector<double> run_signature(const model::MlperfEntry& e)
{
  std::vector<double> starts;
  for (const auto& run : e.runs)
    starts.push_back(run.run_start_ms);
  std::sort(starts.begin(), starts.end());
  return starts;
}

/// The entry's software date as a decimal year (0: undated), by `source`.
double software_year_of(const model::MlperfEntry& entry, SoftwareDateSource source)
{
  switch (source) {
    case SoftwareDateSource::FirstRun: {
      double first_ms = 0;
      for (const auto& run : entry.runs)
        if (run.run_start_ms > 0 && (first_ms == 0 || run.run_start_ms < first_ms))
          first_ms = run.run_start_ms;
      if (first_ms <= 0)
        return 0;
      constexpr double kDayMs = 86'400'000.0; // the day, as the calibration file writes dates
      return model::software_date_from_unix_ms(std::floor(first_ms / kDayMs) * kDayMs).year;
    }
    case SoftwareDateSource::Round: {
      const auto date = model::mlperf_round_date(entry.round);
      return date ? date->year : 0;
    }
    case SoftwareDateSource::None: return 0;
  }
  return 0;
}

analysis::CalibrationCase make_case(const model::MlperfEntry& entry, const MlperfScenario& scenario,
                                    const results::RunRecord& r, SoftwareDateSource date_source)
{
  analysis::CalibrationCase c = simulated_case(scenario, r);
  c.round = entry.round;
  c.submitter = entry.submitter;
  c.system = entry.system;
  c.benchmark = entry.benchmark;
  c.system_key = entry.submitter + "/" + entry.system;
  c.nodes = entry.description.number_of_nodes;
  c.actual_s = *entry.published_score_s(); // the figure MLCommons publishes; the model converges at the RCPs too
  c.scored_samples = entry.olympic_samples_to_converge * entry.rcp_scaling_factor;
  c.logged_rate_samples_per_s = entry.median_training_rate_samples_per_s.value_or(0.0);
  c.software_year = software_year_of(entry, date_source);
  return c;
}

} // namespace

std::string to_string(SoftwareDateSource source)
{
  switch (source) {
    case SoftwareDateSource::FirstRun: return "first-run";
    case SoftwareDateSource::Round: return "round";
    case SoftwareDateSource::None: return "none";
  }
  return "?";
}

std::vector<SoftwareDateSource> all_software_date_sources()
{
  return {SoftwareDateSource::FirstRun, SoftwareDateSource::Round, SoftwareDateSource::None};
}

analysis::CalibrationCase simulated_case(const MlperfScenario& scenario, const results::RunRecord& r)
{
  analysis::CalibrationCase c = uncertainty::simulated_case(scenario.resolved, r);
  c.family = scenario.mapping.gpu_type;
  c.generation = scenario.generation;
  return c;
}

CaseSet prepare_calibration_cases(const std::string& mlperf_dir, const model::Calibration& reference,
                                  const CaseOptions& options)
{
  const config::MlperfImport imported = config::read_mlperf_repository(mlperf_dir);
  MlperfScenarioBuilder builder;
  CaseSet set;
  std::vector<std::size_t> chosen; // indices into set.entries
  std::vector<MlperfScenario> built;
  std::map<std::vector<double>, std::string> seen;
  for (const auto& entry : imported.entries) {
    const std::string key = entry.key();
    auto exclude = [&](const std::string& why) { set.excluded.push_back(key + ": " + why); };
    if (entry.description.division != "closed") {
      exclude("division '" + entry.description.division + "'");
      continue;
    }
    if (!entry.score_s) {
      exclude("no score");
      continue;
    }
    const auto [it, fresh] = seen.emplace(run_signature(entry), key);
    if (!fresh) {
      exclude("the same runs as " + it->second);
      continue;
    }
    set.entries.push_back(entry);
    if (options.max_accelerators > 0 && entry.description.accelerators_total() > options.max_accelerators) {
      exclude(fmt::format("{} accelerators, above --max-accelerators {}", entry.description.accelerators_total(),
                          options.max_accelerators));
      continue;
    }
    try {
      // The reference calibration's efficiencies; not its per-run overhead, which the fit adds itself.
      MlperfScenario scenario =
          builder.build(entry.description, entry.benchmark, entry.global_batch_size,
                        entry.gradient_accumulation_steps, reference, false);
      chosen.push_back(set.entries.size() - 1);
      built.push_back(std::move(scenario));
    } catch (const config::ConfigError& e) {
      exclude(e.diagnostics().front().message);
    } catch (const std::invalid_argument& e) {
      exclude(e.what());
    }
  }
  std::vector<model::ResolvedScenario> scenarios;
  for (const auto& b : built)
    scenarios.push_back(b.resolved);
  const auto runs = run::run_scenarios_parallel(scenarios, options.workers, [&](std::size_t done, std::size_t total) {
    if (options.progress)
      options.progress("simulating", done, total);
  });
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& run = runs[i];
    const model::MlperfEntry& entry = set.entries[chosen[i]];
    const std::string key = entry.key();
    set.simulation_wall_s += run.wall_s;
    if (run.wall_s > set.slowest_simulation_s) {
      set.slowest_simulation_s = run.wall_s;
      set.slowest_case = key;
    }
    if (!run.record) {
      set.excluded.push_back(key + ": simulation failed: " + run.error);
      continue;
    }
    if (run.record->outcome != results::Outcome::Ok) {
      set.excluded.push_back(key + ": " + run.record->infeasible_reason);
      continue;
    }
    set.cases.push_back(make_case(entry, built[i], *run.record, options.software_date));
    set.cases.back().simulation_s = run.wall_s;
    set.scenarios.push_back(scenarios[i]);
  }
  return set;
}

std::vector<double> contention_excess(const CaseSet& set, int workers, const CaseProgress& progress)
{
  auto scenarios = set.scenarios;
  for (auto& resolved : scenarios)
    resolved.scenario.executor = model::StepExecutorKind::Analytical;
  const auto runs = run::run_scenarios_parallel(scenarios, workers, [&](std::size_t done, std::size_t total) {
    if (progress)
      progress("contention-free", done, total);
  });
  std::vector<double> excess;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& record = runs[i].record;
    excess.push_back(record && record->outcome == results::Outcome::Ok && record->iter_time_s > 0
                         ? set.cases[i].iteration_s / record->iter_time_s - 1
                         : NAN);
  }
  return excess;
}

std::vector<double> simulate_s(std::vector<model::ResolvedScenario> scenarios,
                               const std::vector<model::Efficiency>& efficiencies, int workers,
                               const CaseProgress& progress)
{
  for (std::size_t i = 0; i < scenarios.size(); ++i)
    scenarios[i].scenario.efficiency = efficiencies[i];
  const auto runs = run::run_scenarios_parallel(scenarios, workers, [&](std::size_t done, std::size_t total) {
    if (progress)
      progress("re-simulating", done, total);
  });
  std::vector<double> seconds;
  for (const auto& run : runs)
    seconds.push_back(run.record && run.record->outcome == results::Outcome::Ok
                          ? units::from_minutes(run.record->time_to_train_min)
                          : NAN);
  return seconds;
}

} // namespace gpuscale::mlperf
