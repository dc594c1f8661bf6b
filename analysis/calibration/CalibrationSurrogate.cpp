#include "analysis/calibration/CalibrationSurrogate.hpp"

#include "analysis/calibration/ConvergenceFactors.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/SoftwareMaturity.hpp"
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
/// Maturity starts at none (1 at launch): a benchmark no repeat informs stays mature at every age.
constexpr double kAtLaunchStart = model::kMaturityRange.upper, kGapStart = 0.5;

ParameterSpace::Parameter maturity_parameter(const std::string& key, std::optional<model::Benchmark> benchmark,
                                             double start)
{
  return {"maturity." + key, ParameterSpace::Group::Maturity, key, std::log(start),
          std::log(model::kMaturityRange.lower), std::log(model::kMaturityRange.upper), benchmark};
}

/// The maturity parameters of `benchmarks` (at launch each) and the pooled gap.
void add_maturity(std::vector<ParameterSpace::Parameter>& parameters, const std::set<model::Benchmark>& benchmarks)
{
  for (const auto b : benchmarks)
    parameters.push_back(maturity_parameter(model::maturity_at_launch_key(b), b, kAtLaunchStart));
  parameters.push_back(maturity_parameter(model::kMaturityGapKey, std::nullopt, kGapStart));
}

} // namespace

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
  // Software maturity, last so that the other parameters keep their places.
  for (const auto& c : cases)
    reference_year_ = std::max(reference_year_, c.software_year);
  if (reference_year_ > 0)
    add_maturity(parameters_, benchmarks);
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
  if (fold.reference_year_ <= 0) // no dated training case: the full set's date, no maturity informed
    fold.reference_year_ = reference_year_;
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
      !calibration.maturity.contains(model::maturity_at_launch_key(request.benchmark)) ||
      !calibration.maturity.contains(model::kMaturityGapKey))
    return space;
  space.reference_year_ = calibration.software_reference_date->year;
  add_maturity(space.parameters_, {request.benchmark});
  return space;
}

std::vector<std::vector<std::size_t>> ParameterSpace::repeat_groups(const std::vector<CalibrationCase>& cases,
                                                                    const std::vector<bool>& use) const
{
  std::map<std::string, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    if ((!use.empty() && !use[i]) || c.software_year <= 0 || !has_maturity())
      continue;
    groups[model::to_string(c.benchmark) + "|" + c.family + "|" + std::to_string(c.accelerators)].push_back(i);
  }
  std::vector<std::vector<std::size_t>> repeats;
  for (auto& [key, members] : groups) {
    double earliest = HUGE_VAL, latest = -HUGE_VAL;
    for (std::size_t i : members) {
      earliest = std::min(earliest, cases[i].software_year);
      latest = std::max(latest, cases[i].software_year);
    }
    if (latest - earliest >= model::kMaturityRepeatSpanYears)
      repeats.push_back(std::move(members));
  }
  return repeats;
}

double ParameterSpace::software_age_years(const CalibrationCase& c) const
{
  return model::software_age_years(c.software_year > 0 ? c.software_year : reference_year_, c.generation_year,
                                   c.benchmark);
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
  double at_launch = 1.0, gap = 1.0;
  const std::string at_launch_key = model::maturity_at_launch_key(c.benchmark);
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
    else if (p.group == Group::Maturity && p.label == at_launch_key)
      at_launch = std::exp(x[i]);
    else if (p.group == Group::Maturity && p.label == model::kMaturityGapKey)
      gap = std::exp(x[i]);
  }
  // As model::Calibration::efficiency_for: the mature fractions times the pair's maturity at its date.
  const double maturity = has_maturity() ? model::software_maturity(at_launch, gap, software_age_years(c)) : 1.0;
  model::Efficiency efficiency;
  efficiency.compute = std::min(model::kMaxComputeEfficiency, compute * factor * maturity);
  efficiency.memory = memory * maturity;
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
