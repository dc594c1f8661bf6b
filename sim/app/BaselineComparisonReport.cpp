#include "sim/app/BaselineComparisonReport.hpp"

#include "analysis/calibration/AcceleratorBucket.hpp"

#include <fmt/format.h>

namespace gpuscale::app {
namespace {

void print_row(const std::string& name, const analysis::ErrorSummary& ours, const analysis::ErrorSummary& theirs)
{
  fmt::print("  {:<18} {:>4}  {:>8.1f} {:>8.1f} {:>8.1f}   {:>8.1f} {:>8.1f} {:>8.1f}\n", name, ours.count,
             ours.median_pct, ours.mean_pct, ours.p90_pct, theirs.median_pct, theirs.mean_pct, theirs.p90_pct);
}

std::string verdict(const analysis::ModeComparison& c)
{
  const double ours = c.gpuscale.overall.median_pct;
  const double theirs = c.regression.overall.median_pct;
  std::string line =
      c.beats_overall
          ? fmt::format("gpuscale beats the regression overall (median {:.1f} % vs {:.1f} %: {:.1f} % lower)", ours,
                        theirs, c.median_reduction_pct)
          : fmt::format("gpuscale does not beat the regression overall (median {:.1f} % vs {:.1f} %: {:.1f} % higher)",
                        ours, theirs, -c.median_reduction_pct);
  if (c.beats_in_every_bucket()) {
    line += "; lower median in every bucket";
  } else {
    line += "; not lower median in";
    for (const auto& bucket : c.buckets_lost)
      line += " " + bucket;
  }
  line += fmt::format("; target (every bucket, median >= {:.0f} % lower): {}", analysis::kBaselineMedianReductionTargetPct,
                      c.meets_target() ? "met" : "not met");
  return line;
}

void print_mode(const analysis::ModeComparison& c)
{
  fmt::print("\n{}: {} of {} left-out results predicted by both; regression a from the generation's mean {}, "
             "the benchmark's mean {}, unpredicted {}; gpuscale unpredicted {}\n",
             analysis::to_string(c.mode), c.compared, c.left_out, c.regression_generation_mean,
             c.regression_benchmark_mean, c.regression_unpredicted, c.gpuscale_unpredicted);
  if (c.compared == 0) {
    fmt::print("  nothing to compare (--max-accelerators may have left out what this mode predicts)\n");
    return;
  }
  fmt::print("  {:<18} {:>4}  {:>26}   {:>26}\n", "", "", "gpuscale APE %", "regression APE %");
  fmt::print("  {:<18} {:>4}  {:>8} {:>8} {:>8}   {:>8} {:>8} {:>8}\n", "", "n", "median", "mean", "p90", "median",
             "mean", "p90");
  for (const auto& [benchmark, ours] : c.gpuscale.by_benchmark)
    print_row(model::to_string(benchmark), ours, c.regression.by_benchmark.at(benchmark));
  print_row("all", c.gpuscale.overall, c.regression.overall);
  fmt::print("  by accelerators\n");
  for (int bound : analysis::kAcceleratorBuckets) {
    const std::string bucket = analysis::bucket_label(bound);
    if (c.gpuscale.by_bucket.contains(bucket))
      print_row(bucket, c.gpuscale.by_bucket.at(bucket), c.regression.by_bucket.at(bucket));
  }
  fmt::print("  by accelerator family\n");
  for (const auto& [family, ours] : c.gpuscale.by_family)
    print_row(family, ours, c.regression.by_family.at(family));
  fmt::print("  {}\n", verdict(c));
  if (!c.families_lost.empty()) {
    std::string lost;
    for (const auto& family : c.families_lost)
      lost += " " + family;
    fmt::print("  families where gpuscale's median is above the regression's:{}\n", lost);
  }
}

} // namespace

void print_baseline_comparison(const std::vector<analysis::ModeComparison>& comparisons)
{
  fmt::print("\nAgainst a two-parameter regression, log t = a[benchmark, family] - s[benchmark] log n, fitted by\n"
             "least squares on the same training results of each mode and judged on the same left-out ones\n");
  for (const auto& c : comparisons)
    print_mode(c);
}

} // namespace gpuscale::app
