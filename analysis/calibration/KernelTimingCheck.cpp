#include "analysis/calibration/KernelTimingCheck.hpp"

#include "analysis/calibration/CrossValidation.hpp"
#include "analysis/maths/LinearRegression.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace gpuscale::analysis {
namespace {

double quantile_of(std::vector<double> values, double q)
{
  std::sort(values.begin(), values.end());
  return interpolated_quantile(values, q);
}

/// Least squares on relative errors: 1 = fixed / t + (1 / B) bytes / t for every kernel, so a 2 µs
/// kernel weighs as much as a 2 ms one (the fixed time lives in the small ones).
std::optional<StreamingFit> fit_streaming(const std::vector<KernelTimingPoint>& points, double hbm_Bps)
{
  std::vector<std::vector<double>> rows;
  std::vector<double> ones;
  std::set<double> sizes;
  for (const auto& p : points) {
    const bool streaming = p.op == "elementwise" && (p.source == model::KernelSource::Stream ||
                                                     p.source == model::KernelSource::Trace);
    if (!streaming || !(p.measured_s > 0) || !(p.bytes > 0))
      continue;
    rows.push_back({1.0 / p.measured_s, p.bytes / p.measured_s});
    ones.push_back(1.0);
    sizes.insert(p.bytes);
  }
  if (rows.size() < 3 || sizes.size() < 3)
    return std::nullopt;
  LinearFit fit;
  try {
    fit = fit_linear(rows, ones);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
  const double inverse_bw = fit.coefficients[1];
  if (!(inverse_bw > 0))
    return std::nullopt;
  StreamingFit out;
  out.kernels = static_cast<int>(rows.size());
  out.fixed_s = fit.coefficients[0];
  out.fixed_s_error = fit.standard_errors[0];
  out.bandwidth_Bps = 1.0 / inverse_bw;
  out.bandwidth_fraction = out.bandwidth_Bps / hbm_Bps;
  // d(1/x) = dx / x^2, relative: the fraction's relative error is the inverse's.
  out.bandwidth_fraction_error = out.bandwidth_fraction * fit.standard_errors[1] / inverse_bw;
  return out;
}

} // namespace

KernelTimingCheck check_kernel_timings(const std::vector<KernelTimingPoint>& points, double hbm_Bps)
{
  KernelTimingCheck check;
  std::map<std::pair<std::string, model::KernelPass>, std::pair<std::vector<double>, std::vector<double>>> by_op;
  std::map<std::pair<std::string, int>, WorkloadKernelSum> sums;
  std::map<std::pair<std::string, int>, double> memory_bound_s;
  std::vector<double> launches, eager_launches;
  for (const auto& p : points) {
    if (!(p.measured_s > 0) || !(p.model_s > 0))
      continue;
    if (p.source == model::KernelSource::Launch) {
      launches.push_back(p.measured_s);
      if (p.eager_s)
        eager_launches.push_back(*p.eager_s);
      continue;
    }
    auto& [ratios, fractions] = by_op[{p.op, p.pass}];
    ratios.push_back(p.measured_s / p.model_s);
    fractions.push_back(p.roof_s / p.measured_s);
    if (p.source == model::KernelSource::Trace && !p.workload.empty()) {
      auto& sum = sums[{p.workload, p.micro_batch}];
      sum.workload = p.workload;
      sum.micro_batch = p.micro_batch;
      sum.kernels += 1;
      sum.measured_s += p.count * p.measured_s;
      sum.modelled_s += p.count * p.model_s;
      if (p.memory_bound)
        memory_bound_s[{p.workload, p.micro_batch}] += p.count * p.model_s;
    }
  }
  for (const auto& [key, values] : by_op) {
    const auto& [ratios, fractions] = values;
    check.ops.push_back({key.first, key.second, static_cast<int>(ratios.size()), quantile_of(ratios, 0.5),
                         quantile_of(ratios, 0.1), quantile_of(ratios, 0.9), quantile_of(fractions, 0.5)});
  }
  for (auto& [key, sum] : sums) {
    sum.memory_bound_share = sum.modelled_s > 0 ? memory_bound_s[key] / sum.modelled_s : 0;
    check.workloads.push_back(sum);
  }
  if (!launches.empty())
    check.launch_graph_s = quantile_of(launches, 0.5);
  if (!eager_launches.empty())
    check.launch_eager_s = quantile_of(eager_launches, 0.5);
  check.streaming = fit_streaming(points, hbm_Bps);
  return check;
}

} // namespace gpuscale::analysis
