#include "sim/model/Calibration.hpp"

#include "sim/model/SoftwareMaturity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace gpuscale::model {

Efficiency Calibration::efficiency_for(std::optional<Benchmark> benchmark, const std::string& generation_name,
                                       double generation_year, std::optional<SoftwareDate> software_date) const
{
  Efficiency efficiency;
  if (!benchmark)
    return efficiency;
  const auto c = compute.find(*benchmark);
  auto g = generation.find(generation_name);
  if (g == generation.end()) // an uncalibrated generation: the reference generation's fraction
    g = generation.find(kReferenceGeneration);
  const double factor = g != generation.end() ? g->second.value : kReferenceComputeFraction;
  const double maturity = maturity_factor(*benchmark, generation_year, software_date);
  if (c != compute.end())
    efficiency.compute = std::min(kMaxComputeEfficiency, c->second.value * factor * maturity);
  if (const auto m = memory.find(*benchmark); m != memory.end())
    efficiency.memory = m->second.value * maturity;
  if (const auto o = step_overhead_s.find(*benchmark); o != step_overhead_s.end())
    efficiency.step_overhead_s = o->second.value;
  return efficiency;
}

double Calibration::maturity_factor(Benchmark benchmark, double generation_year, std::optional<SoftwareDate> date) const
{
  const auto at_launch = maturity.find(maturity_at_launch_key(benchmark));
  const auto gap = maturity.find(kMaturityGapKey);
  if (at_launch == maturity.end() || gap == maturity.end())
    return 1.0;
  if (!date)
    date = software_reference_date;
  if (!date) // a maturity without its date cannot be read (the reader requires one)
    return 1.0;
  return software_maturity(at_launch->second.value, gap->second.value,
                           software_age_years(date->year, generation_year, benchmark));
}

std::optional<std::string> Calibration::software_date_problem(SoftwareDate date) const
{
  if (!software_reference_date || date.year - software_reference_date->year <= kSoftwareDateHorizonYears)
    return std::nullopt;
  char years[32];
  std::snprintf(years, sizeof years, "%.1f", date.year - software_reference_date->year);
  return "software date " + to_string(date) + " is " + years + " years after the calibration's reference date " +
         to_string(*software_reference_date) + ": software maturity is extrapolated at most " +
         std::to_string(static_cast<int>(kSoftwareDateHorizonYears)) + " years";
}

LinkFractions Calibration::link_fractions() const
{
  LinkFractions links;
  for (const auto& [key, value] : network)
    links.fraction[key] = value.value;
  if (const auto it = collective_s.find("fixed"); it != collective_s.end())
    links.collective_fixed_s = it->second.value;
  if (const auto it = collective_s.find("simple_step"); it != collective_s.end())
    links.simple_step_s = it->second.value;
  return links;
}

bool Calibration::choice(const std::string& name, bool otherwise) const
{
  const auto it = choices.find(name);
  return it != choices.end() ? it->second.value >= 0.5 : otherwise;
}

const ConvergenceFactor* find_convergence_factor(const std::vector<ConvergenceFactor>& factors, Benchmark benchmark,
                                                 int global_batch_size)
{
  const ConvergenceFactor* of_benchmark = nullptr;
  for (const auto& f : factors) {
    if (f.benchmark != benchmark)
      continue;
    if (f.global_batch_size == global_batch_size && global_batch_size > 0)
      return &f;
    if (f.global_batch_size == 0)
      of_benchmark = &f;
  }
  return of_benchmark;
}

double convergence_factor_in(const std::vector<ConvergenceFactor>& factors, Benchmark benchmark, int global_batch_size)
{
  const ConvergenceFactor* f = find_convergence_factor(factors, benchmark, global_batch_size);
  return f != nullptr ? f->factor : 1.0;
}

double Calibration::overhead_s_for(std::optional<Benchmark> benchmark) const
{
  if (!benchmark)
    return 0.0;
  const auto it = overhead_s.find(*benchmark);
  return it != overhead_s.end() ? it->second.value : 0.0;
}

std::optional<int> Calibration::batch_size_for(Benchmark benchmark, int accelerators) const
{
  std::vector<const BatchSizePoint*> points;
  for (const auto& point : batch_sizes)
    if (point.benchmark == benchmark && point.accelerators > 0 && point.global_batch_size > 0)
      points.push_back(&point);
  if (points.empty() || accelerators <= 0)
    return std::nullopt;
  const double n = accelerators;
  auto per_accelerator = [&](const BatchSizePoint& p) { return n * p.global_batch_size / p.accelerators; };
  double batch = 0;
  if (n <= points.front()->accelerators)
    batch = per_accelerator(*points.front());
  else if (n >= points.back()->accelerators)
    batch = per_accelerator(*points.back());
  else
    for (std::size_t i = 1; i < points.size(); ++i)
      if (n <= points[i]->accelerators) {
        const BatchSizePoint& a = *points[i - 1];
        const BatchSizePoint& b = *points[i];
        const double t = std::log(n / a.accelerators) / std::log(static_cast<double>(b.accelerators) / a.accelerators);
        batch = std::exp((1 - t) * std::log(a.global_batch_size) + t * std::log(b.global_batch_size));
        break;
      }
  // Clamped before the conversion: a far extrapolation must not overflow the int it is returned in.
  return static_cast<int>(std::clamp(std::round(batch), 1.0, static_cast<double>(std::numeric_limits<int>::max())));
}

ParameterRange parameter_range(const std::string& key)
{
  if (key == "compute")
    return kComputeRange;
  if (key == "generation")
    return kGenerationRange;
  if (key == "memory")
    return kMemoryRange;
  if (key == "network")
    return kNetworkRange;
  if (key == "collective")
    return kCollectiveCostRange_s;
  if (key == "choices")
    return kChoiceRange;
  if (key == "step_overhead")
    return kStepOverheadRange_s;
  if (key == "overhead")
    return kRunOverheadRange_s;
  if (key == "maturity")
    return kMaturityRange;
  throw std::invalid_argument("no calibration parameter group '" + key + "'");
}

} // namespace gpuscale::model
