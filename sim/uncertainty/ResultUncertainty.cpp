#include "sim/uncertainty/ResultUncertainty.hpp"

#include "analysis/calibration/CalibrationSurrogate.hpp"
#include "sim/uncertainty/SimulatedCase.hpp"
#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace gpuscale::uncertainty {
namespace {

/// The normal quantile of a two-sided 95 % interval: the convergence table's intervals are 95 %.
constexpr double kConvergenceNormalQuantile = 1.959963984540054;

/// Most uncertain first: the order a result is reported under.
int uncertainty_rank(model::PredictionRegime regime)
{
  using R = model::PredictionRegime;
  switch (regime) {
    case R::LaterRound: return 0;
    case R::UncalibratedGeneration: return 1;
    case R::NewFamilyCalibratedGeneration: return 2;
    case R::ThinlyCalibratedFamily: return 3;
    case R::CalibratedFamily: return 4;
    case R::BeyondCalibratedScale: return 5;
  }
  return 6;
}

/// The log bounds of one accelerator type's regimes at its generation; NaN where none has results.
std::pair<double, double> log_bounds_of(const model::IntervalModel& intervals,
                                        const std::vector<model::PredictionRegime>& regimes, double parameter_log_sd,
                                        double years_past_data, const std::string& generation)
{
  const auto bounds = model::interval_s(intervals, regimes, 1.0, parameter_log_sd, years_past_data, generation);
  if (!bounds)
    return {NAN, NAN};
  return {std::log(bounds->first), std::log(bounds->second)};
}

} // namespace

analysis::CalibrationCase surrogate_case(const model::Calibration& calibration, const model::ResolvedScenario& scenario,
                                         const results::RunRecord& record)
{
  const auto& s = scenario.scenario;
  // The run's overhead without the calibrated one (the surrogate adds it), at the scenario's date.
  analysis::CalibrationCase c = simulated_case(scenario, record);
  c.benchmark = scenario.workload.benchmark.value_or(model::Benchmark::Bert);
  if (record.time_to_train_min > 0)
    c.fixed_s -= calibration.overhead_s_for(c.benchmark);
  // Dated away from the calibration's reference date, maturity's standard errors count too; at it,
  // the request is the undated one (the same efficiencies, the same run).
  if (s.software_date && (!calibration.software_reference_date ||
                          s.software_date->year != calibration.software_reference_date->year))
    c.software_year = s.software_date->year;
  return c;
}

std::string ResultUncertainty::regime() const
{
  return regimes.empty() ? std::string() : model::to_string(regimes.front());
}

std::optional<ResultUncertainty> assess(const model::Calibration& calibration, const model::ResolvedScenario& scenario,
                                        const results::RunRecord& record, std::string* why_not)
{
  const auto refuse = [&](std::string reason) -> std::optional<ResultUncertainty> {
    if (why_not != nullptr)
      *why_not = std::move(reason);
    return std::nullopt;
  };
  const auto& s = scenario.scenario;
  if (!scenario.workload.benchmark)
    return refuse("the workload models no MLPerf benchmark, so no calibration error applies to it");
  if (s.efficiency_given)
    return refuse("the scenario states its own efficiencies (efficiency:), not the calibration's");
  if (record.outcome != results::Outcome::Ok)
    return refuse("the run is infeasible");
  if (calibration.intervals.empty())
    return refuse("the calibration holds no prediction intervals (intervals:)");

  ResultUncertainty u;
  u.benchmark = *scenario.workload.benchmark;
  u.global_batch_size = s.global_batch_size;
  const bool later_than_data =
      s.software_date && calibration.software_reference_date && *s.software_date > *calibration.software_reference_date;
  u.years_past_data = later_than_data ? s.software_date->year - calibration.software_reference_date->year : 0.0;

  std::set<std::string> types;
  std::set<model::PredictionRegime> regimes;
  // Each type's regimes at its generation, with its parameters' spread: the run takes the union.
  struct TypeBounds {
    std::vector<model::PredictionRegime> regimes;
    std::string generation;
    double parameter_log_sd = 0;
  };
  std::vector<TypeBounds> per_type;
  u.parameter_log_sd = -1;
  const analysis::CalibrationCase first = surrogate_case(calibration, scenario, record); // decomposed once
  for (const auto& use : scenario.platform.groups_used(s.gpus)) {
    const auto& node = scenario.platform.node_type_of_group(use.group);
    const auto& gpu = scenario.platform.gpu_type_of(node);
    if (!types.insert(gpu.name).second)
      continue;
    const bool generation_calibrated =
        gpu.generation == model::kReferenceGeneration || calibration.generation.contains(gpu.generation);
    TypeBounds type{model::regimes_for(calibration.intervals, generation_calibrated, gpu.name, u.benchmark, s.gpus,
                                       later_than_data),
                    gpu.generation, 0.0};
    regimes.insert(type.regimes.begin(), type.regimes.end());
    analysis::CalibrationCase c = first;
    set_node_type(c, scenario, node);
    const auto space = analysis::ParameterSpace::for_request(c, calibration);
    auto slopes = analysis::parameter_log_slopes(space, c, calibration);
    const double sd = analysis::ratio_parameter_log_sd(slopes, {});
    type.parameter_log_sd = sd;
    per_type.push_back(std::move(type));
    if (sd > u.parameter_log_sd) {
      u.parameter_log_sd = sd;
      u.slopes = std::move(slopes);
    }
  }
  u.parameter_log_sd = std::max(0.0, u.parameter_log_sd);
  for (const auto& t : types)
    u.accelerators += (u.accelerators.empty() ? "" : ",") + t;
  u.regimes.assign(regimes.begin(), regimes.end());
  std::stable_sort(u.regimes.begin(), u.regimes.end(),
                   [](auto a, auto b) { return uncertainty_rank(a) < uncertainty_rank(b); });
  u.step_log = {HUGE_VAL, -HUGE_VAL};
  for (const auto& type : per_type) {
    const auto [low, high] =
        log_bounds_of(calibration.intervals, type.regimes, type.parameter_log_sd, u.years_past_data, type.generation);
    u.step_log = {std::min(u.step_log.first, low), std::max(u.step_log.second, high)};
  }
  if (per_type.empty() || !std::isfinite(u.step_log.first) || !std::isfinite(u.step_log.second))
    return refuse("the calibration has no left-out results for the run's regime");

  if (record.time_to_train_min > 0 && record.convergence_extrapolated != 0) {
    const double samples = record.samples_to_converge;
    const double low = record.samples_to_converge_low;
    const double high = record.samples_to_converge_high;
    u.convergence_log_sd = low > 0 && high > 0 && samples > 0 && std::isfinite(low) && std::isfinite(high)
                               ? std::max(std::log(high / samples), std::log(samples / low)) / kConvergenceNormalQuantile
                               : NAN;
  }
  u.time_to_train_log =
      std::isfinite(u.convergence_log_sd)
          ? model::widened_log_bounds(u.step_log.first, u.step_log.second, u.convergence_log_sd, 0.0)
          : std::pair<double, double>{NAN, NAN};
  return u;
}

void write_interval(const ResultUncertainty& u, results::RunRecord& record)
{
  record.interval_regime = u.regime();
  record.parameter_log_sd = u.parameter_log_sd;
  record.iter_time_low_s = record.iter_time_s * std::exp(u.step_log.first);
  record.iter_time_high_s = record.iter_time_s * std::exp(u.step_log.second);
  if (record.time_to_train_min > 0) {
    record.time_to_train_low_min = record.time_to_train_min * std::exp(u.time_to_train_log.first);
    record.time_to_train_high_min = record.time_to_train_min * std::exp(u.time_to_train_log.second);
  } else {
    record.time_to_train_low_min = record.time_to_train_high_min = 0;
  }
}

bool same_simulation(const results::RunRecord& a, const results::RunRecord& b)
{
  const auto anonymous = [](results::RunRecord r) {
    r.run_id = 0;
    r.scenario.clear();
    r.sweep_id.clear();
    r.sweep_point = -1;
    return r;
  };
  return anonymous(a) == anonymous(b);
}

TimeRatio time_ratio(const model::IntervalModel& intervals, const ResultUncertainty& a, double a_s,
                     const ResultUncertainty& b, double b_s, RatioMetric metric, bool identical)
{
  TimeRatio r;
  r.ratio = a_s / b_s;
  if (identical) {
    r.low = r.high = r.ratio;
    r.basis = "identical";
    return r;
  }
  const bool ttt = metric == RatioMetric::TimeToTrain;
  // Convergence: the same benchmark at the same global batch converges in the same samples, whatever
  // runs it; otherwise each batch's spread counts, independent.
  const double convergence_sd =
      !ttt || (a.benchmark == b.benchmark && a.global_batch_size == b.global_batch_size)
          ? 0.0
          : std::hypot(a.convergence_log_sd, b.convergence_log_sd);
  std::optional<std::pair<double, double>> bounds;
  if (a.benchmark == b.benchmark) {
    std::set<model::PredictionRegime> regimes(a.regimes.begin(), a.regimes.end());
    regimes.insert(b.regimes.begin(), b.regimes.end());
    const auto pair_class =
        a.accelerators == b.accelerators ? model::PairClass::SameFamily : model::PairClass::OtherFamily;
    const std::vector<model::PredictionRegime> all(regimes.begin(), regimes.end());
    bounds = model::ratio_log_bounds(intervals, all, pair_class,
                                     analysis::ratio_parameter_log_sd(a.slopes, b.slopes));
    if (bounds) {
      std::string modes;
      for (auto regime : all)
        modes += (modes.empty() ? "" : ", ") + model::to_string(regime);
      r.basis = model::to_string(pair_class) + " pairs of " + modes;
    }
  }
  if (!bounds) {
    // Independent: the ratio's log error is the difference of two independent ones.
    const auto& la = ttt ? a.time_to_train_log : a.step_log;
    const auto& lb = ttt ? b.time_to_train_log : b.step_log;
    bounds = std::pair{la.first - lb.second, la.second - lb.first};
    r.basis = "independent";
  } else if (convergence_sd > 0 || std::isnan(convergence_sd)) { // NaN: unknown, and so are the bounds
    bounds = model::widened_log_bounds(bounds->first, bounds->second, convergence_sd, 0.0);
  }
  // Bounds on log(actual / predicted) of a over b: the actual ratio lies in ratio x exp(bounds).
  r.low = r.ratio * std::exp(bounds->first);
  r.high = r.ratio * std::exp(bounds->second);
  return r;
}

} // namespace gpuscale::uncertainty
