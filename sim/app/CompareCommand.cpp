#include "sim/app/CatalogOption.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/JsonText.hpp"
#include "sim/app/RunProgress.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/run/ScenarioRunner.hpp"
#include "sim/uncertainty/ResultUncertainty.hpp"
#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

namespace gpuscale::app {

namespace {

struct CompareOptions {
  std::vector<std::string> scenario_paths;
  std::string metric = "auto"; ///< auto | step | time-to-train
  std::string format = "text";
};

struct Option {
  std::string path;
  model::ResolvedScenario resolved;
  run::ScenarioOutcome outcome;
};

struct PairVerdict {
  std::size_t a = 0, b = 0;
  uncertainty::TimeRatio ratio;
};

std::string verdict(const PairVerdict& v, const std::vector<Option>& options)
{
  if (v.ratio.tie())
    return "tie";
  const auto& faster = v.ratio.high < 1.0 ? options[v.a] : options[v.b];
  return faster.resolved.scenario.name + " faster";
}

double metric_s(const results::RunRecord& r, uncertainty::RatioMetric metric)
{
  return metric == uncertainty::RatioMetric::TimeToTrain ? units::from_minutes(r.time_to_train_min) : r.iter_time_s;
}

std::string interval_text(const results::RunRecord& r, uncertainty::RatioMetric metric)
{
  if (r.interval_regime.empty())
    return "no interval";
  if (metric == uncertainty::RatioMetric::TimeToTrain)
    return std::isfinite(r.time_to_train_low_min)
               ? fmt::format("{:.2f} to {:.2f} min", r.time_to_train_low_min, r.time_to_train_high_min)
               : std::string("unknown");
  return units::format_seconds(r.iter_time_low_s) + " to " + units::format_seconds(r.iter_time_high_s);
}

void print_text(const std::vector<Option>& options, const std::vector<PairVerdict>& pairs,
                uncertainty::RatioMetric metric)
{
  const bool ttt = metric == uncertainty::RatioMetric::TimeToTrain;
  fmt::print("{} with {:.0f} % intervals (docs/UNCERTAINTY.md)\n", ttt ? "time to train" : "iteration time",
             model::kIntervalLevel * 100);
  for (const auto& o : options) {
    const auto& r = o.outcome.record;
    const std::string value =
        ttt ? fmt::format("{:.2f} min", r.time_to_train_min) : units::format_seconds(r.iter_time_s);
    fmt::print("  {:<36} {:>12}  ({}; {} GPUs {}; regime {})\n", r.scenario, value, interval_text(r, metric), r.gpus,
               r.gpu_models, r.interval_regime.empty() ? o.outcome.no_interval_reason : r.interval_regime);
  }
  fmt::print("ratios (first over second; < 1: the first is faster), {:.0f} % intervals\n", model::kIntervalLevel * 100);
  for (const auto& v : pairs)
    fmt::print("  {} / {} = {:.3f} [{:.3f}, {:.3f}]  {}  ({})\n", options[v.a].outcome.record.scenario,
               options[v.b].outcome.record.scenario, v.ratio.ratio, v.ratio.low, v.ratio.high, verdict(v, options),
               v.ratio.basis);
}

void print_json(const std::vector<Option>& options, const std::vector<PairVerdict>& pairs,
                uncertainty::RatioMetric metric)
{
  const bool ttt = metric == uncertainty::RatioMetric::TimeToTrain;
  std::string out = fmt::format("{{\n  \"metric\": {},\n  \"interval_level\": {},\n  \"options\": [\n",
                                json_string(ttt ? "time_to_train_s" : "iteration_s"), model::kIntervalLevel);
  for (std::size_t i = 0; i < options.size(); ++i) {
    const auto& r = options[i].outcome.record;
    const bool has = !r.interval_regime.empty();
    const double low = has ? (ttt ? units::from_minutes(r.time_to_train_low_min) : r.iter_time_low_s) : NAN;
    const double high = has ? (ttt ? units::from_minutes(r.time_to_train_high_min) : r.iter_time_high_s) : NAN;
    const auto number = [](double x) { return std::isfinite(x) ? fmt::format("{:.6g}", x) : std::string("null"); };
    out += fmt::format("    {{\"scenario\": {}, \"file\": {}, \"gpus\": {}, \"accelerators\": {}, \"value_s\": {:.6g}, "
                       "\"low_s\": {}, \"high_s\": {}, \"regime\": {}, \"parameter_log_sd\": {:.4g}}}{}\n",
                       json_string(r.scenario), json_string(options[i].path), r.gpus, json_string(r.gpu_models),
                       metric_s(r, metric), number(low), number(high), json_string(r.interval_regime),
                       r.parameter_log_sd, i + 1 < options.size() ? "," : "");
  }
  out += "  ],\n  \"ratios\": [\n";
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto& v = pairs[k];
    out += fmt::format("    {{\"first\": {}, \"second\": {}, \"ratio\": {:.6g}, \"low\": {:.6g}, \"high\": {:.6g}, "
                       "\"tie\": {}, \"verdict\": {}, \"basis\": {}}}{}\n",
                       json_string(options[v.a].outcome.record.scenario), json_string(options[v.b].outcome.record.scenario),
                       v.ratio.ratio, v.ratio.low, v.ratio.high, v.ratio.tie() ? "true" : "false",
                       json_string(verdict(v, options)), json_string(v.ratio.basis), k + 1 < pairs.size() ? "," : "");
  }
  out += "  ]\n}\n";
  fmt::print("{}", out);
}

void compare(const CompareOptions& co)
{
  if (co.scenario_paths.size() < 2)
    throw std::invalid_argument("compare needs at least two scenarios");
  // Read every scenario before simulating any: a typo in the last is reported at once.
  std::vector<Option> options;
  for (const auto& path : co.scenario_paths) {
    Option o{path, config::read_scenario(path), {}};
    run::check_simulation_size(o.resolved.scenario.gpus, "scenario " + path);
    options.push_back(std::move(o));
  }
  for (auto& o : options) {
    RunProgress progress(fmt::format("simulating {} ({} GPUs)", o.resolved.scenario.name, o.resolved.scenario.gpus));
    o.outcome = run::run_scenario(o.resolved, true);
    if (o.outcome.record.outcome != results::Outcome::Ok)
      throw std::invalid_argument("scenario " + o.path + " cannot run: " + o.outcome.record.infeasible_reason);
  }
  bool all_train = true;
  for (const auto& o : options)
    all_train = all_train && o.outcome.record.time_to_train_min > 0;
  if (co.metric == "time-to-train" && !all_train)
    throw std::invalid_argument("--metric time-to-train: a scenario has no convergence table (no time to train)");
  const auto metric = co.metric == "step" || !all_train ? uncertainty::RatioMetric::Step
                                                         : uncertainty::RatioMetric::TimeToTrain;
  std::vector<PairVerdict> pairs;
  for (std::size_t a = 0; a < options.size(); ++a)
    for (std::size_t b = a + 1; b < options.size(); ++b) {
      const auto& x = options[a].outcome;
      const auto& y = options[b].outcome;
      PairVerdict v{a, b, {}};
      const double xs = metric_s(x.record, metric);
      const double ys = metric_s(y.record, metric);
      const bool identical = uncertainty::same_simulation(x.record, y.record);
      if (identical || (x.uncertainty && y.uncertainty && options[a].resolved.calibration == options[b].resolved.calibration))
        v.ratio = identical ? uncertainty::time_ratio({}, {}, xs, {}, ys, metric, true)
                            : uncertainty::time_ratio(options[a].resolved.calibration->intervals, *x.uncertainty, xs,
                                                      *y.uncertainty, ys, metric, false);
      else {
        v.ratio.ratio = xs / ys;
        v.ratio.low = v.ratio.high = NAN;
        v.ratio.basis = "no interval: " + (x.uncertainty ? y.no_interval_reason : x.no_interval_reason);
      }
      pairs.push_back(v);
    }
  if (co.format == "json")
    print_json(options, pairs, metric);
  else
    print_text(options, pairs, metric);
}

} // namespace

void add_compare_command(CLI::App& app)
{
  auto options = std::make_shared<CompareOptions>();
  CLI::App* command = app.add_subcommand(
      "compare", "Simulate two or more scenarios and say, pair by pair, whether one is faster than the other within "
                 "the calibration's errors (the ratio of their times with its 80 % interval)");
  command->add_option("scenarios", options->scenario_paths, "Scenario YAML files (two or more)")->required()->expected(2, -1);
  command->add_option("--metric", options->metric, "What to compare: time-to-train, step, or auto (time to train when every scenario has one)")
      ->check(CLI::IsMember({"auto", "step", "time-to-train"}));
  command->add_option("--format", options->format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
  add_catalog_option(*command);
  command->callback([options] { compare(*options); });
}

} // namespace gpuscale::app
