#include "sim/app/CatalogOption.hpp"
#include "analysis/calibration/PredictionIntervals.hpp"
#include "sim/mlperf/CalibrationCases.hpp"
#include "sim/app/CommandExit.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/JsonText.hpp"
#include "sim/app/RunSummary.hpp"
#include "sim/mlperf/MlperfScenarioBuilder.hpp"
#include "sim/run/ScenarioRunner.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/MlperfLogReader.hpp"
#include "sim/config/MlperfPlatformMapper.hpp"
#include "sim/config/MlperfSystemReader.hpp"
#include "sim/model/Benchmark.hpp"
#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

namespace gpuscale::app {
namespace {

struct PredictOptions {
  std::string system_path;
  std::string benchmark;
  int global_batch_size = 0; ///< 0: the calibration's batch-size rule
  int accumulation_steps = 0; ///< --gradient-accumulation; 0: the layout rule chooses
  std::string calibration_path;
  std::string format = "text";
  std::string round; ///< --round vX.Y
  std::string date;  ///< --date YYYY-MM[-DD]
};

/// The software date to predict for, and where it comes from: --round or --date; else the round of
/// an MLPerf `systems/vX.Y/` folder the system file lies in; else none (the calibration's reference
/// date).
std::pair<std::optional<model::SoftwareDate>, std::string> choose_software_date(const PredictOptions& options)
{
  if (!options.round.empty()) {
    const auto date = model::mlperf_round_date(options.round);
    if (!date)
      throw std::invalid_argument("--round: expected an MLPerf Training round 'vM.0' or 'vM.1' (e.g. v5.0), got '" +
                                  options.round + "'");
    return {date, "--round " + options.round};
  }
  if (!options.date.empty()) {
    const auto date = model::parse_software_date(options.date);
    if (!date || model::mlperf_round_date(options.date)) // a round belongs to --round
      throw std::invalid_argument("--date: expected 'YYYY-MM' or 'YYYY-MM-DD', got '" + options.date + "'");
    return {date, "--date " + options.date};
  }
  const std::filesystem::path path = std::filesystem::absolute(options.system_path).lexically_normal();
  const auto folder = path.parent_path();
  if (folder.parent_path().filename() == "systems")
    if (const auto date = model::mlperf_round_date(folder.filename().string()))
      return {date, "round " + folder.filename().string() + " of the systems/ folder the system file is in"};
  return {std::nullopt, "the calibration's reference date"};
}

/// The batch size to simulate and where it comes from. Without --gbs: the calibration's batch-size
/// points at this accelerator count (Calibration::batch_size_for), no larger than the largest batch
/// the benchmark's RCPs cover (a submission beyond it has no reference convergence to be checked
/// against), and for the data-parallel benchmarks a multiple of the accelerator count.
std::pair<int, std::string> choose_batch(const PredictOptions& options, const model::Calibration& calibration,
                                         model::Benchmark benchmark, int accelerators,
                                         const model::ConvergenceTable& convergence)
{
  if (options.global_batch_size > 0)
    return {options.global_batch_size, "--gbs"};
  const auto rule = calibration.batch_size_for(benchmark, accelerators);
  if (!rule)
    throw std::invalid_argument("the calibration has no batch-size rule for " + model::to_string(benchmark) +
                                ": give --gbs");
  int gbs = *rule;
  std::string source = fmt::format("calibration: MLPerf results' batch against accelerator count, at {} ({})",
                                   accelerators, gbs);
  const int rcp_largest = convergence.points.empty() ? 0 : convergence.points.back().global_batch_size;
  const bool capped = rcp_largest > 0 && gbs > rcp_largest;
  if (capped) {
    gbs = rcp_largest;
    source += fmt::format(", capped at the largest batch the RCPs cover ({})", rcp_largest);
  }
  if (benchmark != model::Benchmark::Llama2_70bLora && gbs % accelerators != 0) { // every GPU takes the same share
    const int down = gbs / accelerators * accelerators;
    if (capped && down > 0) {
      gbs = down;
      source += fmt::format(", rounded down to a multiple of {} accelerators", accelerators);
    } else {
      gbs = down + accelerators;
      source += fmt::format(", rounded up to a multiple of {} accelerators", accelerators);
    }
  }
  return {gbs, source};
}

/// A prediction and what it rests on, before it is printed.
struct Prediction {
  model::Benchmark benchmark = model::Benchmark::Bert;
  model::MlperfSystem system;
  mlperf::MlperfScenario built;
  results::RunRecord record;
  std::string gbs_source; ///< where the global batch size comes from
  std::string gbs_source_rule; ///< how the calibration's batch rule gives its batch
  std::optional<int> rule_global_batch_size; ///< the rule's batch, where the batch was searched (no --gbs)
  std::optional<double> rule_minutes; ///< its time to train, where another batch was chosen
  std::vector<std::string> notes_before; ///< notes made before the prediction's own
  std::optional<model::SoftwareDate> software_date; ///< nullopt: the calibration's reference date
  std::string software_date_source;
  double software_factor = 1; ///< the kernel efficiencies at the date over the reference date's (software maturity)
  std::string regime;     ///< the validation mode whose errors give the interval
  double parameter_sd = 0; ///< the request's parameter log-sd, through the surrogate
  std::optional<std::pair<double, double>> interval; ///< seconds; absent without left-out results
  std::vector<std::string> notes;
};

/// How far ahead the calibration's later_round mode was measured (0 when it does not say).
double later_round_distance_years(const model::Calibration& calibration)
{
  const auto it = calibration.intervals.modes.find(model::to_string(model::PredictionRegime::LaterRound));
  return it == calibration.intervals.modes.end() ? 0.0 : it->second.distance_years;
}

/// A built scenario and its simulated run.
struct SimulatedLayout {
  mlperf::MlperfScenario built;
  results::RunRecord record;
};

/// The layout rule falls back to its own choice where logged accumulation steps do not divide or fit
/// (calibration reads what submitters logged); a user who asks for a number is told instead.
void check_accumulation_used(int requested, const model::Scenario& s)
{
  if (requested <= 0 || s.gradient_accumulation_steps() == requested)
    return;
  const int per_replica = s.global_batch_size / s.data_parallel();
  throw std::invalid_argument(fmt::format(
      "--gradient-accumulation {}: global batch {} over {} replicas is {} samples per replica per step, which {} "
      "micro-batches {} (the layout rule would use {} micro-batch(es) of {})",
      requested, s.global_batch_size, s.data_parallel(), per_replica, requested,
      per_replica % requested != 0 ? "do not divide" : "divide, but no layout with them fits the GPUs and their memory",
      s.gradient_accumulation_steps(), s.micro_batch_size));
}

/// Llama 2's layout where nothing fixes it (no --gradient-accumulation): the layouts of the
/// data-parallel degrees whose replicas of 1-64 GPUs divide the batch (each split by the rule: tp, then
/// cp, the fewest recomputed layers that fit) are simulated from the least model parallelism up, and the
/// fastest time to train is kept, as a submitter tunes its configuration. Memory decides what each
/// layout recomputes, so no one degree is best everywhere: 8x H100 stores every layer at tp 4 and
/// recomputes 72 of 80 at tp 2, 8x H200 stores them at tp 2. More model parallelism on the same GPUs
/// adds communication and smaller GEMMs and pays only by recomputing fewer layers, so the search stops
/// at the first layout that recomputes none or is slower than the one before (which keeps a 256-chip
/// prediction to two or three simulations). Empty when no candidate builds and runs (the rule's single
/// layout then reports why).
std::optional<SimulatedLayout> fastest_llama_layout(mlperf::MlperfScenarioBuilder& builder,
                                                    const model::MlperfSystem& system, int gbs,
                                                    const model::Calibration& calibration,
                                                    std::optional<model::SoftwareDate> software_date,
                                                    std::vector<std::string>& notes)
{
  std::optional<SimulatedLayout> best;
  std::optional<double> previous_min; ///< the last simulated candidate's minutes
  std::string tried;
  const int gpus = system.accelerators_total();
  for (int steps = 1; steps <= gbs; ++steps) {
    if (gbs % steps != 0)
      continue;
    const int data_parallel = gbs / steps;
    if (gpus % data_parallel != 0 || gpus / data_parallel > 64)
      continue;
    SimulatedLayout candidate;
    try {
      candidate.built = builder.build(system, model::Benchmark::Llama2_70bLora, gbs, steps, calibration, true,
                                      software_date);
    } catch (const std::invalid_argument&) {
      continue; // no split of that many GPUs fits
    }
    const model::Scenario& s = candidate.built.resolved.scenario;
    if (s.data_parallel() != data_parallel)
      continue; // the degree did not fit and the rule chose another: that one is a candidate of its own
    if (s.zero_stage == 3)
      continue; // one GPU per replica only where it holds the model: DeepSpeed's ZeRO-3 is no NeMo layout
    // Each candidate in a process of its own: a step simulated whole leaves SimGrid initialised.
    candidate.record = run::run_scenario(candidate.built.resolved, true).record;
    if (candidate.record.outcome != results::Outcome::Ok)
      continue;
    tried += fmt::format("{}tp {} cp {}{}: {:.1f} min", tried.empty() ? "" : "; ", s.tensor_parallel,
                         s.context_parallel, checkpointing_phrase(candidate.record), candidate.record.time_to_train_min);
    const bool slower = previous_min && candidate.record.time_to_train_min > *previous_min;
    const bool stores_all = candidate.record.recomputed_blocks == 0;
    previous_min = candidate.record.time_to_train_min;
    if (!best || candidate.record.time_to_train_min < best->record.time_to_train_min)
      best = std::move(candidate);
    if (slower || stores_all)
      break;
  }
  if (best)
    notes.push_back("layout: the fastest of the layouts that fit, each simulated (" + tried + ")");
  return best;
}

/// The system's step for the benchmark at `gbs` samples per step, laid out by the rule (for Llama 2
/// without --gradient-accumulation, the fastest of its layouts), simulated. Throws std::invalid_argument
/// when no layout divides the batch or fits (SubmitterLayout).
SimulatedLayout simulate_at(mlperf::MlperfScenarioBuilder& builder, const model::MlperfSystem& system,
                            model::Benchmark benchmark, int gbs, const PredictOptions& options,
                            const model::Calibration& calibration, std::optional<model::SoftwareDate> software_date,
                            std::vector<std::string>& notes, bool isolated)
{
  if (benchmark == model::Benchmark::Llama2_70bLora && options.accumulation_steps == 0)
    if (auto fastest = fastest_llama_layout(builder, system, gbs, calibration, software_date, notes))
      return std::move(*fastest);
  SimulatedLayout layout;
  layout.built = builder.build(system, benchmark, gbs, options.accumulation_steps, calibration, true, software_date);
  check_accumulation_used(options.accumulation_steps, layout.built.resolved.scenario);
  layout.record = run::run_scenario(layout.built.resolved, isolated).record;
  return layout;
}

/// Without --gbs the global batch is a choice: the batches of the convergence table's points that
/// every GPU can take (a multiple of the accelerators for the data-parallel benchmarks; the table covers
/// exactly the batches whose convergence the RCPs measured) and the calibration rule's batch
/// (`rule_gbs`, what submitters use at this scale) are each simulated, and the one with the least time
/// to train is kept. Where it is not the rule's, the note says so with both times.
void choose_batch_by_simulation(Prediction& p, mlperf::MlperfScenarioBuilder& builder, model::Benchmark benchmark,
                                int rule_gbs, const PredictOptions& options, const model::Calibration& calibration,
                                std::vector<std::string>& layout_notes)
{
  const int accelerators = p.system.accelerators_total();
  std::vector<int> batches{rule_gbs};
  for (const auto& point : builder.convergence(benchmark).points)
    if ((benchmark == model::Benchmark::Llama2_70bLora || point.global_batch_size % accelerators == 0) &&
        std::find(batches.begin(), batches.end(), point.global_batch_size) == batches.end())
      batches.push_back(point.global_batch_size);
  std::optional<SimulatedLayout> best, rule;
  std::vector<std::string> best_notes;
  std::string tried;
  for (int gbs : batches) {
    std::vector<std::string> notes;
    SimulatedLayout layout;
    try {
      layout = simulate_at(builder, p.system, benchmark, gbs, options, calibration, p.software_date, notes, true);
    } catch (const std::invalid_argument&) {
      if (gbs == rule_gbs)
        throw; // the rule's own batch reports why it cannot run
      continue;
    }
    if (layout.record.outcome != results::Outcome::Ok) {
      if (gbs == rule_gbs)
        rule = layout;
      continue;
    }
    tried += fmt::format("{}{}: {:.2f} min", tried.empty() ? "" : ", ", gbs, layout.record.time_to_train_min);
    if (gbs == rule_gbs)
      rule = layout;
    if (!best || layout.record.time_to_train_min < best->record.time_to_train_min) {
      best = layout;
      best_notes = std::move(notes);
    }
  }
  if (!best) { // nothing runs: the rule's batch reports why
    p.built = std::move(rule->built);
    p.record = std::move(rule->record);
    return;
  }
  const int chosen = best->built.resolved.scenario.global_batch_size;
  p.rule_global_batch_size = rule_gbs;
  if (chosen == rule_gbs) {
    p.gbs_source += fmt::format("; the least time to train of the batches simulated ({})", tried);
  } else {
    p.gbs_source = fmt::format("the least time to train of the convergence table's batches every GPU takes and the "
                               "calibration rule's, each simulated ({})",
                               tried);
    if (rule && rule->record.outcome == results::Outcome::Ok)
      p.rule_minutes = rule->record.time_to_train_min;
    p.notes_before.push_back(fmt::format(
        "global batch: the submitters' usual batch at {} accelerators ({}) is {}{}; {} trains faster here: {:.2f} min",
        accelerators, p.gbs_source_rule, rule_gbs,
        p.rule_minutes ? fmt::format(" and trains in {:.2f} min", *p.rule_minutes) : std::string(" and does not run"),
        chosen, best->record.time_to_train_min));
  }
  layout_notes = std::move(best_notes);
  p.built = std::move(best->built);
  p.record = std::move(best->record);
}

/// Simulates the system's step for the benchmark and derives the time to train, its interval and notes.
Prediction make_prediction(const PredictOptions& options)
{
  Prediction p;
  const auto benchmark = model::parse_benchmark(options.benchmark);
  if (!benchmark)
    throw std::invalid_argument("unknown benchmark '" + options.benchmark + "' (known: " +
                                model::known_benchmark_names() + ")");
  p.system = config::read_mlperf_system(options.system_path);
  run::check_simulation_size(p.system.accelerators_total(), "system " + options.system_path);
  const model::Calibration calibration = options.calibration_path.empty()
                                             ? config::default_calibration()
                                             : config::read_calibration(options.calibration_path);
  mlperf::MlperfScenarioBuilder builder;
  (void)config::map_mlperf_system(p.system, builder.catalog()); // unknown accelerators are reported first
  int gbs = 0;
  std::tie(gbs, p.gbs_source) = choose_batch(options, calibration, *benchmark, p.system.accelerators_total(),
                                              builder.convergence(*benchmark));
  p.gbs_source_rule = p.gbs_source;
  std::tie(p.software_date, p.software_date_source) = choose_software_date(options);
  std::vector<std::string> layout_notes;
  // --gradient-accumulation reads as a submission logs it, at the rule's batch: no batch search then.
  if (options.global_batch_size > 0 || options.accumulation_steps > 0) {
    SimulatedLayout layout = simulate_at(builder, p.system, *benchmark, gbs, options, calibration, p.software_date,
                                         layout_notes, false);
    p.built = std::move(layout.built);
    p.record = std::move(layout.record);
  } else {
    choose_batch_by_simulation(p, builder, *benchmark, gbs, options, calibration, layout_notes);
  }
  const mlperf::MlperfScenario& built = p.built;
  const model::MlperfSystem& system = p.system;
  std::vector<std::string>& notes = p.notes;
  notes = built.mapping.notes;
  notes.insert(notes.end(), p.notes_before.begin(), p.notes_before.end());
  notes.insert(notes.end(), layout_notes.begin(), layout_notes.end());
  if (const auto* f = model::find_convergence_factor(calibration.convergence_factors, *benchmark,
                                                     built.resolved.scenario.global_batch_size))
    notes.push_back(fmt::format("samples to converge: the convergence table's times {:.4g}, the median of {} calibration "
                                "results{} over the table (convergence_factors)",
                                f->factor, f->results,
                                f->global_batch_size > 0 ? fmt::format(" at global batch size {}", f->global_batch_size)
                                                         : std::string(" of the benchmark")));
  if (!calibration.generation.contains(built.generation))
    notes.push_back("accelerator generation '" + built.generation +
                    "' has no MLPerf result in the calibration: it reaches the fraction of its dense peak that " +
                    model::kReferenceGeneration + " does, so the prediction rests on the catalog's datasheet figures");
  const auto& r = p.record;
  if (r.outcome != results::Outcome::Ok)
    throw CommandExit(1, "cannot predict: " + r.infeasible_reason);
  p.benchmark = *benchmark;
  const bool generation_calibrated =
      built.generation == model::kReferenceGeneration || calibration.generation.contains(built.generation);
  const bool later_than_data = p.software_date && calibration.software_reference_date &&
                               *p.software_date > *calibration.software_reference_date;
  const double years_past_data =
      later_than_data ? p.software_date->year - calibration.software_reference_date->year : 0.0;
  if (p.software_date) {
    const double generation_year = built.resolved.platform.gpu_types.at(built.mapping.gpu_type).generation_available_year;
    p.software_factor = calibration.maturity_factor(*benchmark, generation_year, p.software_date) /
                        calibration.maturity_factor(*benchmark, generation_year, std::nullopt);
    if (calibration.maturity.empty())
      notes.push_back("the calibration has no software maturity: every date runs at its efficiencies");
    if (later_than_data) {
      const double measured_ahead = later_round_distance_years(calibration);
      notes.push_back(fmt::format(
          "software date {} is {:.2f} years after the calibration's latest result ({}): software maturity is "
          "extrapolated, and the interval is later_round's (fit on the earlier rounds, predict the latest{})",
          model::to_string(*p.software_date), years_past_data, model::to_string(*calibration.software_reference_date),
          measured_ahead > 0 ? fmt::format(", {:.2f} years ahead; its excess over calibrated_family stretched in "
                                           "proportion beyond that distance", measured_ahead)
                             : std::string("; the calibration does not record how far ahead, so its bounds as measured")));
    }
  }
  const auto regimes = model::regimes_for(calibration.intervals, generation_calibrated, built.mapping.gpu_type,
                                          *benchmark, system.accelerators_total(), later_than_data);
  p.regime = model::to_string(regimes.front());
  const std::string& regime = p.regime;
  if (std::find(regimes.begin(), regimes.end(), model::PredictionRegime::BeyondCalibratedScale) != regimes.end())
    notes.push_back(fmt::format("{} accelerators is beyond the calibrated scale of {} ({}): the interval is the "
                                "wider of {} and beyond_calibrated_scale",
                                system.accelerators_total(), model::to_string(*benchmark),
                                calibration.intervals.calibrated_accelerators.at(*benchmark), regime));
  // The interval is the record's, as every simulated result's (sim/uncertainty/ResultUncertainty.hpp):
  // the regimes above, the parameters' spread through the surrogate of its step at its date, and
  // later_round's bounds stretched beyond the distance they were measured at.
  p.parameter_sd = r.parameter_log_sd;
  if (!r.interval_regime.empty())
    p.regime = r.interval_regime;
  if (!r.interval_regime.empty() && std::isfinite(r.time_to_train_low_min))
    p.interval = std::pair{units::from_minutes(r.time_to_train_low_min), units::from_minutes(r.time_to_train_high_min)};
  if (!p.interval)
    notes.push_back("the calibration has no left-out results for regime " + regime + " (intervals:): no interval given");
  return p;
}

/// The prediction as one JSON object on stdout.
/// The scale-up fabric of the nodes the prediction runs on, and "+ network" when it spans nodes.
std::string fabric_of(const Prediction& p)
{
  const auto& resolved = p.built.resolved;
  const auto used = resolved.platform.groups_used(resolved.scenario.gpus);
  if (used.empty())
    return "none";
  const std::string scale_up = model::to_string(resolved.platform.node_type_of_group(used.front().group).fabric);
  return p.record.nodes > 1 ? scale_up + " + inter-node network" : scale_up;
}

void print_prediction_json(const Prediction& p)
{
  const auto& s = p.built.resolved.scenario;
  const auto& e = s.efficiency;
  const auto& r = p.record;
  std::string notes_json;
  for (const auto& n : p.notes)
    notes_json += (notes_json.empty() ? "" : ", ") + json_string(n);
  const std::string interval_json =
      p.interval ? fmt::format("[{:.6g}, {:.6g}]", units::to_minutes(p.interval->first), units::to_minutes(p.interval->second))
                 : std::string("null");
  fmt::print("{{\n  \"benchmark\": {},\n  \"system\": {},\n  \"predicted_minutes\": {:.6g},\n"
             "  \"interval_minutes\": {},\n  \"interval_level\": {},\n  \"regime\": {},\n"
             "  \"parameter_log_sd\": {:.4g},\n  \"software_date\": {},\n  \"software_date_source\": {},\n"
             "  \"software_factor\": {:.6g},\n"
             "  \"iteration_time_s\": {:.6g},\n  \"throughput_samples_per_s\": {:.6g},\n"
             "  \"global_batch_size\": {},\n  \"global_batch_size_source\": {},\n"
             "  \"global_batch_size_rule\": {},\n  \"rule_predicted_minutes\": {},\n  \"accelerators\": {},\n"
             "  \"nodes\": {},\n  \"accelerator\": {},\n  \"node_type\": {},\n  \"fabric\": {},\n"
             "  \"tensor_parallel\": {},\n  \"context_parallel\": {},\n  \"micro_batch_size\": {},\n"
             "  \"efficiency\": {{\"compute\": {:.4g}, \"memory\": {:.4g}, \"scale_up_link_fraction\": {:.4g}, \"nic_link_fraction\": {:.4g}, \"step_overhead_s\": {:.4g}}},\n"
             "  \"samples_to_converge\": {:.6g},\n  \"input_bound\": {},\n  \"notes\": [{}]\n}}\n",
             json_string(model::to_string(p.benchmark)), json_string(p.system.system_name), r.time_to_train_min, interval_json,
             model::kIntervalLevel, json_string(p.regime), p.parameter_sd,
             p.software_date ? json_string(model::to_string(*p.software_date)) : std::string("null"),
             json_string(p.software_date_source), p.software_factor, r.effective_iter_time_s,
             static_cast<double>(s.global_batch_size) / r.effective_iter_time_s, s.global_batch_size,
             json_string(p.gbs_source),
             p.rule_global_batch_size ? std::to_string(*p.rule_global_batch_size) : std::string("null"),
             p.rule_minutes ? fmt::format("{:.6g}", *p.rule_minutes) : std::string("null"), s.gpus, r.nodes, json_string(p.built.mapping.gpu_type),
             json_string(p.built.mapping.node_type), json_string(fabric_of(p)), s.tensor_parallel,
             s.context_parallel, s.micro_batch_size, e.compute, e.memory, r.scale_up_link_fraction, r.nic_link_fraction, e.step_overhead_s,
             r.samples_to_converge,
             r.input_bound != 0 ? "true" : "false", notes_json);
}

/// The prediction as labelled lines on stdout.
void print_prediction_text(const Prediction& p, const PredictOptions& options)
{
  const auto& s = p.built.resolved.scenario;
  const auto& e = s.efficiency;
  const auto& r = p.record;
  fmt::print("system     {} ({})\n", p.system.system_name, options.system_path);
  fmt::print("platform   {} x {} ({}), {} node(s), fabric {}\n", s.gpus, p.built.mapping.gpu_type,
             p.built.mapping.node_type, r.nodes, fabric_of(p));
  fmt::print("layout     global batch {} ({}), micro-batch {}, tp {}, cp {}{}\n", s.global_batch_size, p.gbs_source,
             s.micro_batch_size, s.tensor_parallel, s.context_parallel,
             checkpointing_phrase(r));
  fmt::print("efficiency compute {:.3f}, memory {:.3f}, links {:.3f} (scale-up) / {:.3f} (NIC), step overhead {:.3g} s "
             "(calibration{})\n",
             e.compute, e.memory, r.scale_up_link_fraction, r.nic_link_fraction, e.step_overhead_s, options.calibration_path.empty() ? ": embedded calibration/mlperf.yaml" : " " + options.calibration_path);
  fmt::print("software   {} ({}){}\n",
             p.software_date ? model::to_string(*p.software_date) : std::string("reference date"), p.software_date_source,
             p.software_factor != 1 ? fmt::format(": kernel efficiencies x {:.4f} by software maturity", p.software_factor)
                                    : std::string());
  fmt::print("step       {:.4g} s, {:.1f} samples/s{}\n", r.effective_iter_time_s,
             s.global_batch_size / r.effective_iter_time_s, r.input_bound != 0 ? " (input bound)" : "");
  const std::string interval_text =
      p.interval ? fmt::format(" ({:.0f} %: {:.1f}\u2013{:.1f})", model::kIntervalLevel * 100,
                               units::to_minutes(p.interval->first), units::to_minutes(p.interval->second))
                 : std::string();
  fmt::print("predicted  {:.1f} min{} time to train ({:.2f} training + {:.2f} evaluation + {:.2f} overhead), "
             "{:.4g} samples to converge\n",
             r.time_to_train_min, interval_text, r.ttt_training_min, r.ttt_evaluation_min, r.ttt_overhead_min,
             r.samples_to_converge);
  fmt::print("regime     {} (interval from the left-out errors of that validation mode, widened where the request's "
             "parameter log-sd {:.3f} exceeds the mode's; docs/VALIDATION.md, \"Prediction intervals and regimes\")\n",
             p.regime, p.parameter_sd);
  for (const auto& n : p.notes)
    fmt::print("note       {}\n", n);
}

void run_predict(const PredictOptions& options)
{
  const Prediction prediction = make_prediction(options);
  if (options.format == "json")
    print_prediction_json(prediction);
  else
    print_prediction_text(prediction, options);
}

} // namespace

void add_predict_command(CLI::App& app)
{
  auto options = std::make_shared<PredictOptions>();
  CLI::App* command =
      app.add_subcommand("predict", "Predict the MLPerf time to train of a system description (MLPerf system JSON)");
  command->add_option("--system", options->system_path, "System description (MLPerf systems/*.json format)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--benchmark", options->benchmark, "bert, llama2_70b_lora, resnet, retinanet, stable_diffusion")
      ->required();
  command->add_option("--gbs", options->global_batch_size,
                      "Global batch size (default: what submitters use at that scale, from the calibration)")
      ->check(CLI::PositiveNumber);
  command->add_option("--gradient-accumulation", options->accumulation_steps,
                      "Micro-batches accumulated per step, as a submission logs gradient_accumulation_steps: fixes "
                      "the micro-batch (or, for llama2_70b_lora at micro-batch 1, the data-parallel degree) where "
                      "that layout divides and fits (default: the layout rule of docs/MLPERF_DATA.md; for llama2_70b_lora the "
                      "fastest of its candidate layouts, each simulated)")
      ->check(CLI::PositiveNumber);
  command->add_option("--calibration", options->calibration_path, "Calibration file (default: the embedded one)")
      ->check(CLI::ExistingFile);
  command->add_option("--format", options->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  auto* round = command->add_option(
      "--round", options->round,
      "MLPerf Training round to predict for (v5.0 = software of 2025-05): the calibration's software maturity "
      "moves the kernel efficiencies to that date; a date after the calibration's data is extrapolated (regime "
      "later_round). Default: the round of the MLPerf systems/vX.Y/ folder the --system file is in, else the "
      "calibration's reference date (its latest result)");
  command->add_option("--date", options->date, "Software date to predict for, YYYY-MM or YYYY-MM-DD (as --round)")
      ->excludes(round);
  add_catalog_option(*command);
  command->callback([options] { run_predict(*options); });
}

} // namespace gpuscale::app
