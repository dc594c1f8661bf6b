#include "analysis/calibration/KernelTimingCheck.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

analysis::KernelTimingPoint streaming(double bytes, double measured_s)
{
  analysis::KernelTimingPoint p;
  p.source = model::KernelSource::Stream;
  p.op = "elementwise";
  p.bytes = bytes;
  p.measured_s = measured_s;
  p.roof_s = bytes / 4.8e12;
  p.model_s = 1e-6 + bytes / (0.5 * 4.8e12);
  p.memory_bound = true;
  return p;
}

} // namespace

TEST_CASE("analysis::check_kernel_timings recovers a streaming kernel's fixed time and bandwidth", "[calibration]")
{
  // Kernels that take exactly 3 us plus their bytes at 85 % of 4.8 TB/s.
  std::vector<analysis::KernelTimingPoint> points;
  for (double bytes = 1024; bytes <= 1e9; bytes *= 4)
    points.push_back(streaming(bytes, 3e-6 + bytes / (0.85 * 4.8e12)));
  const auto check = analysis::check_kernel_timings(points, 4.8e12);
  REQUIRE(check.streaming);
  CHECK(check.streaming->kernels == static_cast<int>(points.size()));
  CHECK(check.streaming->fixed_s == Approx(3e-6).epsilon(1e-9));
  CHECK(check.streaming->bandwidth_fraction == Approx(0.85).epsilon(1e-9));
  REQUIRE(check.ops.size() == 1);
  CHECK(check.ops[0].kernels == static_cast<int>(points.size()));
  // The largest kernels reach 85 % of the roof, the smallest almost nothing: the median lies between.
  CHECK(check.ops[0].median_roof_fraction < 0.85);
  CHECK(check.ops[0].median_roof_fraction > 0.0);

  // Two sizes cannot separate a fixed time from a bandwidth.
  const std::vector<analysis::KernelTimingPoint> two{streaming(1e6, 4e-6), streaming(1e6, 4.1e-6),
                                                     streaming(2e6, 5e-6)};
  CHECK_FALSE(analysis::check_kernel_timings(two, 4.8e12).streaming);
}

TEST_CASE("analysis::check_kernel_timings sums a workload's kernels by their counts, and keeps launches apart",
          "[calibration]")
{
  std::vector<analysis::KernelTimingPoint> points;
  auto trace = [](const std::string& op, model::KernelPass pass, long long count, double measured_s, double model_s,
                  bool memory_bound) {
    analysis::KernelTimingPoint p;
    p.source = model::KernelSource::Trace;
    p.op = op;
    p.pass = pass;
    p.workload = "bert-large";
    p.micro_batch = 8;
    p.count = count;
    p.measured_s = measured_s;
    p.model_s = model_s;
    p.roof_s = model_s / 2;
    p.memory_bound = memory_bound;
    return p;
  };
  points.push_back(trace("gemm", model::KernelPass::Forward, 24, 20e-6, 10e-6, false));
  points.push_back(trace("gemm", model::KernelPass::WeightGradient, 24, 30e-6, 30e-6, false));
  points.push_back(trace("elementwise", model::KernelPass::Forward, 48, 5e-6, 4e-6, true));
  analysis::KernelTimingPoint launch;
  launch.source = model::KernelSource::Launch;
  launch.op = "elementwise";
  for (const double t : {2.0e-6, 2.4e-6, 2.2e-6}) {
    launch.measured_s = t;
    launch.eager_s = 2 * t;
    launch.model_s = 1e-6;
    points.push_back(launch);
  }
  const auto check = analysis::check_kernel_timings(points, 4.8e12);
  REQUIRE(check.launch_graph_s);
  CHECK(*check.launch_graph_s == Approx(2.2e-6));
  REQUIRE(check.launch_eager_s);
  CHECK(*check.launch_eager_s == Approx(4.4e-6));
  REQUIRE(check.workloads.size() == 1);
  const auto& w = check.workloads[0];
  CHECK(w.kernels == 3);
  CHECK(w.measured_s == Approx(24 * 20e-6 + 24 * 30e-6 + 48 * 5e-6));
  CHECK(w.modelled_s == Approx(24 * 10e-6 + 24 * 30e-6 + 48 * 4e-6));
  CHECK(w.memory_bound_share == Approx(48 * 4e-6 / w.modelled_s));
  // Launch kernels are not an op of the step.
  REQUIRE(check.ops.size() == 3);
  for (const auto& op : check.ops)
    CHECK(op.kernels == 1);
  CHECK(check.ops[0].op == "elementwise");
  CHECK(check.ops[0].median_ratio == Approx(1.25));
}
