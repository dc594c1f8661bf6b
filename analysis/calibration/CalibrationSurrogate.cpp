#include "analysis/calibration/CalibrationSurrogate.hpp"

#include "sim/model/Calibration.hpp"
#include "sim/units/Quantity.hpp"

#include <algorithm>
#include <cmath>
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
  }
  model::Efficiency efficiency;
  efficiency.compute = std::min(model::kMaxComputeEfficiency, compute * factor);
  efficiency.memory = memory;
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

double ParameterSpace::predict_s(const CalibrationCase& c, const std::vector<double>& x) const
{
  return surrogate_s(c, efficiency(c, x), overhead_s(c.benchmark, x), communication_ratio(c, x));
}

double surrogate_s(const CalibrationCase& c, const model::Efficiency& efficiency, double overhead_s,
                         double communication_ratio)
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
  return step * c.step_equivalents + c.fixed_s + overhead_s;
}

} // namespace gpuscale::analysis
