#include "analysis/calibration/CalibrationSurrogate.hpp"

#include "analysis/calibration/ConvergenceFactors.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/SoftwareTrend.hpp"
#include "sim/units/Quantity.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gpuscale::analysis {
namespace {

// Bounds (values, not coordinates). Efficiencies are fractions of datasheet peaks.
// Bounds: model::ParameterRange (one definition for the fit, the reader and scenarios); starting points here.
constexpr double kComputeLow = model::kComputeRange.lower, kComputeHigh = model::kComputeRange.upper, kComputeStart = 0.8;
constexpr double kGenerationLow = model::kGenerationRange.lower, kGenerationHigh = model::kGenerationRange.upper;
constexpr double kMemoryLow = model::kMemoryRange.lower, kMemoryHigh = model::kMemoryRange.upper, kMemoryStart = 0.7;
// The run-overhead coordinate is minutes (ParameterSpace): its bound and start here are coordinates.
constexpr double kOverheadHighMin = units::to_minutes(model::kRunOverheadRange_s.upper), kOverheadStartMin = 1.0;
constexpr double kStepOverheadHigh_s = model::kStepOverheadRange_s.upper, kStepOverheadStart_s = 0.01;
constexpr double kLinkStart = 0.5;
/// A trend starts at no trend (rho = 1): a trend no result informs stays none.
constexpr double kTrendStart = model::kSoftwareTrendRange.upper;

ParameterSpace::Parameter trend_parameter(const std::string& label)
{
  return {"software_trend." + label, ParameterSpace::Group::SoftwareTrend, label, std::log(kTrendStart),
          std::log(model::kSoftwareTrendRange.lower), std::log(model::kSoftwareTrendRange.upper),
          model::parse_benchmark(label)};
}

} // namespace

std::set<std::string> benchmarks_with_own_trend(const std::vector<CalibrationCase>& cases, const std::vector<bool>& use)
{
  // Dated repeats: results whose benchmark, family and accelerator count were run at software dates
  // at least kTrendRepeatSpanYears apart.
  std::map<std::string, std::pair<double, double>> span; // group -> earliest, latest
  auto group_of = [](const CalibrationCase& c) {
    return model::to_string(c.benchmark) + "|" + c.family + "|" + std::to_string(c.accelerators);
  };
  auto used = [&](std::size_t i) { return (use.empty() || use[i]) && cases[i].software_year > 0; };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!used(i))
      continue;
    auto [it, fresh] = span.try_emplace(group_of(cases[i]), cases[i].software_year, cases[i].software_year);
    it->second.first = std::min(it->second.first, cases[i].software_year);
    it->second.second = std::max(it->second.second, cases[i].software_year);
  }
  std::map<std::string, int> repeats;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (!used(i))
      continue;
    const auto& [earliest, latest] = span.at(group_of(cases[i]));
    if (latest - earliest >= model::kTrendRepeatSpanYears)
      ++repeats[model::to_string(cases[i].benchmark)];
  }
  std::set<std::string> own;
  for (const auto& [benchmark, n] : repeats)
    if (n >= model::kOwnTrendMinResults)
      own.insert(benchmark);
  return own;
}

ParameterSpace::ParameterSpace(const std::vector<CalibrationCase>& cases)
{
  std::set<model::Benchmark> benchmarks;
  std::set<std::string> generations, links;
  for (const auto& c : cases) {
    benchmarks.insert(c.benchmark);
    if (c.generation != model::kReferenceGeneration)
      generations.insert(c.generation);
    for (const char* fitted : kFittedLinkClasses)
      if (c.scale_up_link == fitted)
        links.insert(c.scale_up_link);
  }
  for (const auto b : benchmarks)
    parameters_.push_back({"compute." + model::to_string(b), Group::Compute, model::to_string(b), std::log(kComputeStart),
                           std::log(kComputeLow), std::log(kComputeHigh), b});
  for (const auto& g : generations)
    parameters_.push_back({"generation." + g, Group::Generation, g, std::log(model::kReferenceComputeFraction),
                           std::log(kGenerationLow),
                           std::log(kGenerationHigh), std::nullopt});
  for (const auto b : benchmarks)
    parameters_.push_back({"memory." + model::to_string(b), Group::Memory, model::to_string(b), std::log(kMemoryStart),
                           std::log(kMemoryLow), std::log(kMemoryHigh), b});
  for (const auto& l : links)
    parameters_.push_back({"network." + l, Group::Network, l, std::log(kLinkStart), std::log(model::kNetworkRange.lower),
                           std::log(model::kNetworkRange.upper), std::nullopt});
  for (const auto b : benchmarks)
    parameters_.push_back({"overhead." + model::to_string(b), Group::Overhead, model::to_string(b), kOverheadStartMin,
                           0.0, kOverheadHighMin, b});
  for (const auto b : benchmarks)
    parameters_.push_back({"step_overhead." + model::to_string(b), Group::StepOverhead, model::to_string(b),
                           kStepOverheadStart_s, 0.0, kStepOverheadHigh_s, b});
  // The software trend, last so that the other parameters keep their places.
  for (const auto& c : cases)
    reference_year_ = std::max(reference_year_, c.software_year);
  if (reference_year_ > 0) {
    own_trends_ = benchmarks_with_own_trend(cases);
    for (const auto& g : own_trends_)
      parameters_.push_back(trend_parameter(g));
    parameters_.push_back(trend_parameter(model::kPooledSoftwareTrend));
    has_pooled_trend_ = true;
  }
}

ParameterSpace ParameterSpace::for_training(const std::vector<CalibrationCase>& cases, const std::vector<bool>& use) const
{
  ParameterSpace fold = *this;
  if (reference_year_ <= 0)
    return fold;
  fold.reference_year_ = 0;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (use.empty() || use[i])
      fold.reference_year_ = std::max(fold.reference_year_, cases[i].software_year);
  if (fold.reference_year_ <= 0) // no dated training case: the full set's date, no trend informed
    fold.reference_year_ = reference_year_;
  fold.own_trends_.clear();
  for (const auto& g : benchmarks_with_own_trend(cases, use))
    if (own_trends_.contains(g))
      fold.own_trends_.insert(g);
  return fold;
}

ParameterSpace ParameterSpace::for_request(const CalibrationCase& request, const model::Calibration& calibration)
{
  CalibrationCase undated = request;
  undated.software_year = 0;
  ParameterSpace space({undated});
  space.convergence_factors_ = calibration.convergence_factors; // what the prediction converges at
  if (!space.convergence_factors_.empty())
    space.basis_ = ConvergenceBasis::Runs;
  if (request.software_year <= 0 || !calibration.software_reference_date ||
      !calibration.software_trend_for(request.benchmark))
    return space;
  space.reference_year_ = calibration.software_reference_date->year;
  const std::string name = model::to_string(request.benchmark);
  if (calibration.software_trend.contains(name)) {
    space.own_trends_.insert(name);
    space.parameters_.push_back(trend_parameter(name));
  } else {
    space.has_pooled_trend_ = true;
    space.parameters_.push_back(trend_parameter(model::kPooledSoftwareTrend));
  }
  return space;
}

std::vector<std::vector<std::size_t>> ParameterSpace::trend_repeat_groups(const std::vector<CalibrationCase>& cases,
                                                                          const std::vector<bool>& use) const
{
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::string name = model::to_string(c.benchmark);
    if ((!use.empty() && !use[i]) || c.software_year <= 0 || trend_label(name).empty())
      continue;
    groups[name + "|" + c.family + "|" + std::to_string(c.accelerators)].push_back(i);
  }
  std::vector<std::vector<std::size_t>> repeats;
  for (auto& [key, members] : groups) {
    double earliest = HUGE_VAL, latest = -HUGE_VAL;
    for (std::size_t i : members) {
      earliest = std::min(earliest, cases[i].software_year);
      latest = std::max(latest, cases[i].software_year);
    }
    if (latest - earliest >= model::kTrendRepeatSpanYears)
      repeats.push_back(std::move(members));
  }
  return repeats;
}

ParameterSpace ParameterSpace::all_pooled() const
{
  ParameterSpace pooled = *this;
  pooled.own_trends_.clear();
  return pooled;
}

std::string ParameterSpace::trend_label(const std::string& benchmark) const
{
  if (reference_year_ <= 0)
    return "";
  if (own_trends_.contains(benchmark))
    return benchmark;
  return has_pooled_trend_ ? model::kPooledSoftwareTrend : "";
}

std::vector<double> ParameterSpace::start() const
{
  std::vector<double> x;
  for (const auto& p : parameters_)
    x.push_back(p.start);
  return x;
}

double ParameterSpace::value_of(std::size_t index, const std::vector<double>& x) const
{
  switch (parameters_[index].group) {
    case Group::Overhead: return units::from_minutes(x[index]);
    case Group::StepOverhead: return x[index];
    default: return std::exp(x[index]);
  }
}

int ParameterSpace::index_of(const std::string& name) const
{
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].name == name)
      return static_cast<int>(i);
  return -1;
}

model::Efficiency ParameterSpace::efficiency(const CalibrationCase& c, const std::vector<double>& x) const
{
  double compute = kComputeStart, factor = model::kReferenceComputeFraction, memory = kMemoryStart, step_overhead = 0;
  double rho = 1.0;
  const std::string trend = c.software_year > 0 ? trend_label(model::to_string(c.benchmark)) : std::string();
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const auto& p = parameters_[i];
    if (p.group == Group::Compute && p.benchmark == c.benchmark)
      compute = std::exp(x[i]);
    else if (p.group == Group::Generation && p.label == c.generation)
      factor = std::exp(x[i]);
    else if (p.group == Group::Memory && p.benchmark == c.benchmark)
      memory = std::exp(x[i]);
    else if (p.group == Group::StepOverhead && p.benchmark == c.benchmark)
      step_overhead = x[i];
    else if (p.group == Group::SoftwareTrend && p.label == trend)
      rho = std::exp(x[i]);
  }
  model::Efficiency efficiency;
  efficiency.compute = std::min(model::kMaxComputeEfficiency, compute * factor);
  efficiency.memory = memory;
  if (!trend.empty()) { // as model::Calibration::efficiency_for at a software date
    const double f = model::software_trend_factor(rho, c.software_year - reference_year_);
    efficiency.compute = std::min(model::kMaxComputeEfficiency, efficiency.compute * f);
    efficiency.memory = std::min(model::kMemoryRange.upper, efficiency.memory * f);
  }
  efficiency.step_overhead_s = step_overhead;
  return efficiency;
}

double ParameterSpace::overhead_s(model::Benchmark benchmark, const std::vector<double>& x) const
{
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].group == Group::Overhead && parameters_[i].benchmark == benchmark)
      return units::from_minutes(x[i]);
  return 0.0;
}

double ParameterSpace::communication_ratio(const CalibrationCase& c, const std::vector<double>& x) const
{
  for (std::size_t i = 0; i < parameters_.size(); ++i)
    if (parameters_[i].group == Group::Network && parameters_[i].label == c.scale_up_link)
      return c.reference_link_fraction / std::exp(x[i]);
  return 1.0;
}

std::string to_string(ParameterSpace::ConvergenceBasis basis)
{
  return basis == ParameterSpace::ConvergenceBasis::Runs ? "runs" : "table";
}

std::vector<ParameterSpace::ConvergenceBasis> all_convergence_bases()
{
  return {ParameterSpace::ConvergenceBasis::Runs, ParameterSpace::ConvergenceBasis::Table};
}

ParameterSpace ParameterSpace::with_convergence_basis(ConvergenceBasis basis, const std::vector<CalibrationCase>& cases,
                                                     const std::vector<bool>& use) const
{
  ParameterSpace space = *this;
  space.basis_ = basis;
  space.convergence_factors_.clear();
  if (basis == ConvergenceBasis::Runs)
    space.convergence_factors_ = measure_convergence_factors(cases, use);
  return space;
}

double ParameterSpace::convergence_factor(const CalibrationCase& c) const
{
  return model::convergence_factor_in(convergence_factors_, c.benchmark, c.global_batch_size);
}

double ParameterSpace::predict_s(const CalibrationCase& c, const std::vector<double>& x) const
{
  return surrogate_s(c, efficiency(c, x), overhead_s(c.benchmark, x), communication_ratio(c, x), convergence_factor(c));
}

double ParameterSpace::fitted_s(const CalibrationCase& c, const std::vector<double>& x) const
{
  const double factor =
      basis_ == ConvergenceBasis::Runs && c.has_convergence_ratio() ? c.convergence_ratio() : convergence_factor(c);
  return surrogate_s(c, efficiency(c, x), overhead_s(c.benchmark, x), communication_ratio(c, x), factor);
}

double ParameterSpace::at_table_s(const CalibrationCase& c, const std::vector<double>& x) const
{
  return surrogate_s(c, efficiency(c, x), overhead_s(c.benchmark, x), communication_ratio(c, x), 1.0);
}

double surrogate_s(const CalibrationCase& c, const model::Efficiency& efficiency, double overhead_s,
                   double communication_ratio, double convergence_factor)
{
  const double busy0 = c.reference_busy_s;
  const double busy = c.profile.busy_time_s(efficiency.compute, efficiency.memory);
  // Communication scales with the fitted links' fraction (bandwidth terms; 1 for measured links),
  // and what compute hid of it shrinks and grows with compute.
  const double r = communication_ratio;
  const double hidden0 = std::max(0.0, c.comm_s - c.exposed_comm_s);
  const double scale = busy0 > 0 ? busy / busy0 : 1.0;
  const double exposed = std::max({0.0, c.exposed_comm_s * r, c.comm_s * r - hidden0 * scale});
  const double residual = c.iteration_s - busy0 - c.exposed_comm_s - c.reference.step_overhead_s;
  const double step = std::max(busy + exposed + residual + efficiency.step_overhead_s, c.host_limit_s);
  return step * c.step_equivalents * convergence_factor + c.fixed_s + overhead_s;
}

} // namespace gpuscale::analysis
