#include "analysis/frontier/MarkdownReport.hpp"

#include <algorithm>

#include "analysis/frontier/TimeMetric.hpp"
#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <cmath>

namespace gpuscale::analysis {
namespace {

std::string estimate(const Estimate& e)
{
  // An exact fit leaves only rounding noise in the half-width (about 1e-15 of the value, different for
  // every QR implementation): shown as 0, as it is.
  const double half_width = e.half_width_95 > 1e-9 * std::fabs(e.value) ? e.half_width_95 : 0.0;
  return e.half_width_95 > 0 ? format_number(e.value) + " ± " + format_number(half_width) : format_number(e.value);
}

/// The time of a configuration with its 80 % interval where the row has one; an extrapolated one is marked.
std::string time_cell(const Configuration& c)
{
  const bool interval = c.time_low_s != c.time_s || c.time_high_s != c.time_s;
  if (!interval)
    return format_time(c.time_s) + (c.convergence_extrapolated ? " (extrapolated)" : "");
  return format_time(c.time_s) + " (" + (c.convergence_extrapolated ? "extrapolated, " : "") +
         "80 %: " + format_time(c.time_low_s) + " to " + format_time(c.time_high_s) + ")";
}

void table_header(std::ostream& out, const std::vector<std::string>& columns)
{
  std::string head = "|", rule = "|";
  for (const auto& c : columns) {
    head += " " + c + " |";
    rule += "---|";
  }
  out << head << "\n" << rule << "\n";
}

void table_row(std::ostream& out, const std::vector<std::string>& cells)
{
  std::string row = "|";
  for (const auto& c : cells)
    row += " " + c + " |";
  out << row << "\n";
}

void scaling_tables(const FrontierAnalysis& a, std::ostream& out)
{
  out << "## Scaling\n\nSpeedup S(N) = T(N0)/T(N) and efficiency E(N) = T(N0)·N0/(T(N)·N) against the series' "
         "fewest GPUs N0; marginal gain of a step = added throughput per added GPU over one GPU's share at N0.\n";
  for (std::size_t s = 0; s < a.series.size(); ++s) {
    const auto& series = a.series[s];
    out << "\n### " << series.label << "\n\n";
    table_header(out, {"GPUs", "time", "speedup", "efficiency", "marginal gain", "GPU-hours", "cost (USD)",
                       "energy (kWh)", "note"});
    for (std::size_t k = 0; k < series.points.size(); ++k) {
      const auto& p = series.points[k];
      const auto& c = a.configurations[p.configuration];
      table_row(out, {std::to_string(p.gpus), time_cell(c), format_number(p.speedup),
                      format_number(p.efficiency), format_number(p.marginal_gain), format_number(c.gpu_hours),
                      format_number(c.cost_usd), format_number(c.energy_kwh),
                      a.balance[s].point == k ? "balance point" : ""});
    }
  }
}

void balance_table(const FrontierAnalysis& a, std::ostream& out)
{
  out << "\n## Balance points\n\nLargest configuration before the marginal gain per added GPU falls below "
      << format_number(a.options.marginal_gain_threshold) << ".\n\n";
  table_header(out, {"series", "GPUs", "time", "efficiency", "gain of the next step", "limit"});
  for (std::size_t s = 0; s < a.series.size(); ++s) {
    const auto& b = a.balance[s];
    const auto& p = a.series[s].points[b.point];
    table_row(out, {a.series[s].label, std::to_string(b.gpus), format_time(p.time_s), format_number(p.efficiency),
                    format_number(b.next_marginal_gain),
                    b.limited ? "gain fell below the threshold" : "largest configuration simulated"});
  }
}

void deadline_table(const FrontierAnalysis& a, std::ostream& out)
{
  out << "\n## Fewest GPU-hours at a deadline\n\nDeadline on the " << time_metric_name() << ": "
      << (a.options.deadline_s ? format_time(*a.options.deadline_s)
                               : format_number(a.options.deadline_factor) + " x the workload's fastest configuration")
      << ".\n\n";
  table_header(out, {"workload", "deadline", "configurations meeting it", "choice", "time", "GPU-hours", "cost (USD)"});
  for (const auto& d : a.deadlines) {
    if (!d.configuration) {
      table_row(out, {d.workload, format_time(d.deadline_s), "0", "none", "", "", ""});
      continue;
    }
    const auto& c = a.configurations[*d.configuration];
    table_row(out, {d.workload, format_time(d.deadline_s), std::to_string(d.meeting), c.label(), time_cell(c),
                    format_number(c.gpu_hours), format_number(c.cost_usd)});
  }
}

void regression_table(const FrontierAnalysis& a, std::ostream& out)
{
  out << "\n## Regression of time on GPU count\n\nPower law: least squares on log T = log a + b log N (b = -1 is "
         "perfect strong scaling). Amdahl and the Universal Scalability Law: least squares on "
         "N·T(N) = T1·(1 + σ(N-1) + κN(N-1)), σ the serial/contention fraction, κ the coherency cost (κ = 0 for "
         "Amdahl). ± are 95% confidence half-widths (Student t; delta method for σ and κ); the simulator is "
         "deterministic, so they measure departure from the law, not noise.\n\n";
  table_header(out, {"series", "points", "b", "a (s)", "R² (log-log)", "Amdahl σ", "R² (Amdahl)", "USL σ", "USL κ",
                     "USL T1 (s)", "R² (USL)"});
  for (const auto& s : a.series) {
    std::vector<std::string> row{s.label, std::to_string(s.points.size())};
    if (s.power_law)
      row.insert(row.end(), {estimate(s.power_law->exponent), estimate(s.power_law->coefficient),
                             format_number(s.power_law->r_squared)});
    else
      row.insert(row.end(), {"n/a", "n/a", "n/a"});
    if (s.amdahl)
      row.insert(row.end(), {estimate(s.amdahl->contention), format_number(s.amdahl->r_squared)});
    else
      row.insert(row.end(), {"n/a", "n/a"});
    if (s.usl)
      row.insert(row.end(), {estimate(s.usl->contention), estimate(s.usl->coherency),
                             estimate(s.usl->single_gpu_time_s), format_number(s.usl->r_squared)});
    else
      row.insert(row.end(), {"n/a", "n/a", "n/a", "n/a"});
    table_row(out, row);
  }
}

void frontier_tables(const FrontierAnalysis& a, std::ostream& out)
{
  out << "\n## Pareto frontiers\n\nConfigurations of a workload that no other beats on both " << time_metric_name()
      << " and the second quantity; # is the number of the point on the frontier plot.\n";
  for (const auto& f : a.frontiers) {
    out << "\n### " << f.workload << ": time vs " << f.metric << " (" << f.front.size() << " of " << f.considered
        << ")\n\n";
    if (f.front.empty()) {
      out << "No configuration has a value for " << f.metric << ".\n";
      continue;
    }
    table_header(out, {"#", "configuration", "time", f.metric, "efficiency"});
    for (std::size_t k = 0; k < f.front.size(); ++k) {
      const auto& c = a.configurations[f.front[k]];
      table_row(out, {std::to_string(k + 1), c.label(), time_cell(c), format_number(metric_value(c, f.metric)),
                      format_number(c.efficiency)});
    }
  }
}

void cluster_tables(const FrontierAnalysis& a, std::ostream& out)
{
  out << "\n## Clusters\n\n";
  if (!a.clusters) {
    out << "Not enough configurations (or no varying feature) to cluster.\n";
    return;
  }
  const auto& c = *a.clusters;
  out << "k-means on standardised features (k-means++ seeding, seed " << a.options.clustering.seed
      << ", 10 restarts); k = " << c.k << " ("
      << (c.chosen_by_silhouette ? "best mean silhouette" : "default: fewer than 10 configurations, or k given")
      << "), mean silhouette " << format_number(c.silhouette) << ".";
  if (!c.dropped_features.empty()) {
    std::string dropped;
    for (const auto& f : c.dropped_features)
      dropped += (dropped.empty() ? "" : ", ") + f;
    out << " Constant, left out: " << dropped << ".";
  }
  out << "\n\n";
  if (!c.silhouettes.empty()) {
    table_header(out, {"k", "mean silhouette"});
    for (const auto& [k, score] : c.silhouettes)
      table_row(out, {std::to_string(k), format_number(score)});
    out << "\n";
  }
  out << "Feature importance: share of each feature's variance that lies between clusters (η²).\n\n";
  table_header(out, {"feature", "η²"});
  for (const auto& f : c.features)
    table_row(out, {f.name, format_number(f.importance)});
  out << "\n";
  std::vector<std::string> columns{"cluster", "size"};
  for (const auto& f : c.features)
    columns.push_back("mean " + f.name + (f.unit.empty() ? "" : " (" + f.unit + ")"));
  columns.push_back("description");
  table_header(out, columns);
  for (const auto& d : c.clusters) {
    std::vector<std::string> row{std::to_string(d.id), std::to_string(d.size)};
    for (double m : d.mean)
      row.push_back(format_number(m));
    row.push_back(d.summary);
    table_row(out, row);
  }
}

void ranking_tables(const FrontierAnalysis& a, std::ostream& out)
{
  const auto& w = a.options.topsis_weights;
  out << "\n## Ranking (TOPSIS)\n\nWeights: time " << format_number(w[0]) << ", GPU-hours " << format_number(w[1])
      << ", cost " << format_number(w[2]) << ", efficiency " << format_number(w[3])
      << " (normalised to sum 1); closeness 1 = the ideal configuration.\n";
  for (const auto& r : a.rankings) {
    out << "\n### " << r.workload << "\n\n";
    if (!r.note.empty())
      out << r.note << ".\n\n";
    std::size_t extrapolated = 0;
    for (const auto& [configuration, closeness] : r.ranked)
      extrapolated += a.configurations[configuration].convergence_extrapolated ? 1 : 0;
    if (extrapolated > 0)
      out << extrapolated << " of " << r.ranked.size()
          << " ranked configurations have an extrapolated time to train (marked; ranked on the central value).\n\n";
    out << "\"time vs fastest\": tie where the 80 % interval of the ratio of the two times holds 1 (the model cannot "
           "tell them apart; docs/UNCERTAINTY.md).\n\n";
    table_header(out, {"rank", "configuration", "time", "time vs fastest", "GPU-hours", "cost (USD)", "efficiency",
                       "closeness"});
    for (std::size_t k = 0; k < r.ranked.size() && k < 20; ++k) {
      const auto& c = a.configurations[r.ranked[k].first];
      const bool tie = k < r.ties_fastest.size() && r.ties_fastest[k];
      const std::string versus = r.ranked[k].first == r.fastest ? "fastest" : tie ? "tie" : "slower";
      table_row(out, {std::to_string(k + 1), c.label(), time_cell(c), versus,
                      format_number(c.gpu_hours), format_number(c.cost_usd), format_number(c.efficiency),
                      format_number(r.ranked[k].second)});
    }
  }
}

} // namespace

std::string format_number(double value)
{
  if (std::isnan(value))
    return "n/a";
  if (std::fabs(value) < 1e-12) // rounding noise of the fits (e.g. κ of an exact Amdahl series)
    return "0";
  return fmt::format("{:.4g}", value);
}

std::string format_time(double seconds)
{
  if (std::isnan(seconds))
    return "n/a";
  const double magnitude = std::fabs(seconds);
  if (magnitude < 1e-3)
    return fmt::format("{:.4g} us", seconds * 1e6);
  if (magnitude < 1)
    return fmt::format("{:.4g} ms", seconds * 1e3);
  if (magnitude < 120)
    return fmt::format("{:.4g} s", seconds);
  if (magnitude < 7200)
    return fmt::format("{:.4g} min", units::to_minutes(seconds));
  return fmt::format("{:.4g} h", seconds / 3600);
}

void write_report_tables(const FrontierAnalysis& a, std::ostream& out)
{
  scaling_tables(a, out);
  balance_table(a, out);
  deadline_table(a, out);
  regression_table(a, out);
  frontier_tables(a, out);
  cluster_tables(a, out);
  ranking_tables(a, out);
}

void write_markdown_report(const FrontierAnalysis& a, const ReportContext& context, std::ostream& out)
{
  out << "# Efficiency frontier: " << context.source << "\n\n";
  out << "- Rows: " << a.rows << " (" << a.infeasible_rows << " infeasible and " << a.rows_without_time
      << " without a " << time_metric_name() << ", left out); " << a.configurations.size()
      << " configurations of " << a.workloads.size() << " workload(s) in " << a.series.size()
      << " scaling series.\n";
  out << "- Time metric: " << time_metric_name() << " (T)";
  if (a.extrapolated_rows > 0) {
    out << "; for " << a.extrapolated_rows << " configuration(s) the global batch lies outside the convergence "
        << "table's reference points, so their samples to converge are extrapolated with the critical-batch-size "
        << "fit (McCandlish et al., arXiv 1812.06162), which widens their 80 % interval";
    if (a.excluded_extrapolated_rows > 0)
      out << "; they are left out of this analysis (exclude extrapolated)";
    else
      out << ", marked \"extrapolated\" in the tables";
  }
  out << ". GPU-hours = GPUs·T/3600; cost = GPU-hours x the "
         "catalog's on-demand price per GPU-hour (price_usd_per_gpu_hour; n/a where the catalog has none).\n";
  out << "- Energy: GPUs·P·T with P = P_idle + (TDP - P_idle)·u per GPU, P_idle = "
      << format_number(a.options.energy.idle_fraction)
      << "·TDP, u = compute time / step time; GPU boards only (no host, network or cooling).\n";
  out << "- Balance threshold (marginal gain per added GPU): " << format_number(a.options.marginal_gain_threshold)
      << ".\n\n";
  if (!context.plots.empty()) {
    out << "## Plots\n\n";
    for (const auto& plot : context.plots)
      out << "### " << plot.title << "\n\n![" << plot.title << "](" << plot.stem << ".png) ([SVG](" << plot.stem
          << ".svg))\n\n";
  } else if (!context.plot_problem.empty()) {
    out << "Plots were not rendered: " << context.plot_problem << ".\n\n";
  }
  write_report_tables(a, out);
}

std::string format_ranking_text(const FrontierAnalysis& a, std::size_t rows_per_workload)
{
  std::string text;
  for (const auto& r : a.rankings) {
    text += fmt::format("{}TOPSIS ranking, {}{}\n", text.empty() ? "" : "\n", r.workload, r.note.empty() ? "" : " (" + r.note + ")");
    // The configuration column is as wide as its longest label, so the figures stay in columns.
    std::size_t label_width = std::string("configuration").size();
    for (std::size_t k = 0; k < r.ranked.size() && k < rows_per_workload; ++k)
      label_width = std::max(label_width, a.configurations[r.ranked[k].first].label().size());
    text += fmt::format("  {:>4}  {:<{}} {:>12} {:>11} {:>11} {:>10} {:>9}\n", "rank", "configuration", label_width,
                        "time", "GPU-hours", "cost (USD)", "efficiency", "closeness");
    for (std::size_t k = 0; k < r.ranked.size() && k < rows_per_workload; ++k) {
      const auto& c = a.configurations[r.ranked[k].first];
      text += fmt::format("  {:>4}  {:<{}} {:>12} {:>11} {:>11} {:>10} {:>9}{}\n", k + 1, c.label(), label_width,
                          format_time(c.time_s),
                          format_number(c.gpu_hours), format_number(c.cost_usd), format_number(c.efficiency),
                          format_number(r.ranked[k].second),
                          c.convergence_extrapolated ? "  EXTRAPOLATED convergence, time " + format_time(c.time_low_s) +
                                                           " to " + format_time(c.time_high_s) + " (80 %)"
                                                     : std::string());
    }
  }
  return text;
}

} // namespace gpuscale::analysis
