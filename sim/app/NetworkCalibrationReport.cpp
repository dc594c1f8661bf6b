#include "sim/app/NetworkCalibrationReport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuscale::app {
namespace {

/// Upper ends of the size classes of the table: latency-bound below 64 KiB, bandwidth-bound from
/// 256 MiB, two classes between.
constexpr double kSizeClassEnds_bytes[] = {64.0 * 1024, 4.0 * 1024 * 1024, 256.0 * 1024 * 1024, INFINITY};

double median(std::vector<double> values)
{
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string bytes_label(std::int64_t bytes)
{
  constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024 && unit < 4 && std::fmod(value, 1024) == 0) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:g} {}", value, kUnits[unit]);
}

std::string value_text(const analysis::NetworkParameter& p, double value)
{
  return p.group == analysis::NetworkParameter::Group::Network ? fmt::format("{:.4f}", value)
                                                                : fmt::format("{:.3f} us", value * 1e6);
}

/// A 1-sigma to two significant digits (one of 4e-05 would print as 0.0000).
std::string sigma_text(const analysis::NetworkParameter& p, double sigma)
{
  return p.group == analysis::NetworkParameter::Group::Network ? fmt::format("{:.2g}", sigma)
                                                                : fmt::format("{:.2g} us", sigma * 1e6);
}

} // namespace

int series_rows(const std::vector<analysis::NetworkFitSeries>& series)
{
  int rows = 0;
  for (const auto& s : series)
    rows += static_cast<int>(s.measured_s.size());
  return rows;
}

model::NetworkFitSummary network_fit_summary(const std::string& platform_path,
                                             const std::vector<NetworkCalibrationLog>& logs,
                                             const analysis::NetworkFitResult& fit)
{
  model::NetworkFitSummary summary;
  summary.platform = platform_path;
  summary.rms_log_error = fit.rms_log_error;
  summary.evaluations = fit.evaluations;
  for (std::size_t l = 0; l < logs.size(); ++l) {
    const auto& entry = logs[l];
    std::vector<double> errors_pct;
    for (std::size_t i = 0; i < entry.rows.size(); ++i)
      errors_pct.push_back(100 * std::abs(fit.fitted_s[l][i] / entry.rows[i].time_s - 1));
    summary.logs.push_back({entry.log.file, model::to_string(entry.log.op), entry.log.ranks, entry.log.hosts,
                            static_cast<int>(entry.rows.size()), median(errors_pct)});
    summary.rows += static_cast<int>(entry.rows.size());
  }
  return summary;
}

std::string format_network_fit_report(const std::vector<NetworkCalibrationLog>& logs,
                                      const analysis::NetworkFitResult& fit)
{
  std::size_t names = std::string("collective.simple_step").size();
  for (const auto& p : fit.parameters)
    names = std::max(names, p.parameter.name().size());
  std::string out = fmt::format("{:<{}} {:>10} {:>10} {:>11} {:>5}  {}\n", "parameter", names, "start", "fitted",
                                "1-sigma", "rows", "note");
  for (const auto& p : fit.parameters)
    out += fmt::format("{:<{}} {:>10} {:>10} {:>11} {:>5}  {}\n", p.parameter.name(), names,
                       value_text(p.parameter, p.start), value_text(p.parameter, p.fitted.value),
                       sigma_text(p.parameter, p.fitted.standard_error), p.fitted.results,
                       p.fitted.identified ? p.fitted.note : "not identified: " + p.fitted.note);
  for (const auto& p : fit.uninformed)
    out += fmt::format("{:<{}} not fitted and not written: no row of these logs depends on it\n", p.name(), names);

  const auto name_of = [](const NetworkCalibrationLog& entry) {
    return fmt::format("{} ({}, {} x {})", entry.log.file, model::to_string(entry.log.op), entry.log.ranks_per_host,
                       entry.log.hosts);
  };
  std::size_t width = std::string("log (op, ranks per host x hosts)").size();
  for (const auto& entry : logs)
    width = std::max(width, name_of(entry).size());
  out += fmt::format("\n{:<{}} {:>19} {:>5} {:>14} {:>12} {:>10}\n", "log (op, ranks per host x hosts)", width, "sizes",
                     "rows", "busbw measured", "busbw fitted", "time err");
  for (std::size_t l = 0; l < logs.size(); ++l) {
    const auto& entry = logs[l];
    const double factor = model::bus_bandwidth_factor(entry.log.op, entry.log.ranks);
    const std::string name = name_of(entry);
    double lower = 0;
    for (double upper : kSizeClassEnds_bytes) {
      std::vector<double> measured_GBps, fitted_GBps, errors_pct;
      std::int64_t smallest = 0, largest = 0;
      for (std::size_t i = 0; i < entry.rows.size(); ++i) {
        const auto& row = entry.rows[i];
        const auto size = static_cast<double>(row.size_bytes);
        if (size < lower || size >= upper)
          continue;
        smallest = smallest == 0 ? row.size_bytes : std::min(smallest, row.size_bytes);
        largest = std::max(largest, row.size_bytes);
        measured_GBps.push_back(size / row.time_s * factor / 1e9);
        fitted_GBps.push_back(size / fit.fitted_s[l][i] * factor / 1e9);
        errors_pct.push_back(100 * (fit.fitted_s[l][i] / row.time_s - 1));
      }
      lower = upper;
      if (measured_GBps.empty())
        continue;
      const std::string sizes =
          smallest == largest ? bytes_label(smallest) : bytes_label(smallest) + " - " + bytes_label(largest);
      out += fmt::format("{:<{}} {:>19} {:>5} {:>9.2f} GB/s {:>7.2f} GB/s {:>+8.1f} %\n", name, width, sizes,
                         measured_GBps.size(),
                         median(measured_GBps), median(fitted_GBps), median(errors_pct));
    }
  }
  out += fmt::format("\nfit        rms log error {:.4f} (at the start {:.4f}); busbw and time error: medians over "
                     "the class's sizes, time error = fitted / measured - 1\n",
                     fit.rms_log_error, fit.start_rms_log_error);
  return out;
}

std::vector<std::string> network_fit_warnings(const analysis::NetworkFitResult& fit)
{
  std::vector<std::string> warnings;
  for (const auto& p : fit.parameters)
    if (p.fitted.note == "at its bound")
      warnings.push_back(fmt::format(
          "{} fitted at its bound ({}): the logs want it beyond the physical range, so the model is wrong for these "
          "collectives there (an algorithm, protocol or cost it lacks); the value is not a measurement",
          p.parameter.name(), value_text(p.parameter, p.fitted.value)));
  return warnings;
}

} // namespace gpuscale::app
