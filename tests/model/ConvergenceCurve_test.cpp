#include "sim/config/ConvergenceReader.hpp"
#include "sim/model/ConvergenceCurve.hpp"
#include "sim/model/OlympicMean.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

using gpuscale::model::ConvergenceCurve;
using gpuscale::model::ConvergencePoint;
using gpuscale::model::olympic_mean;

namespace {

const std::vector<std::string> kBenchmarks{"bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion"};

ConvergenceCurve committed_curve(const std::string& benchmark)
{
  return gpuscale::config::read_convergence(std::string(GPUSCALE_SOURCE_DIR) + "/workloads/convergence/" + benchmark +
                                            ".yaml")
      .curve();
}

} // namespace

TEST_CASE("model::olympic_mean drops the fastest and the slowest run", "[model]")
{
  CHECK(olympic_mean({1000, 1200, 900, 5000, 1100}) == 1100.0);
  CHECK(olympic_mean({3, 1, 2}) == 2.0);
  CHECK(olympic_mean({4, 4, 4, 5}) == 4.0);
  CHECK_THROWS_AS(olympic_mean({1, 2}), std::invalid_argument);
}

TEST_CASE("model::ConvergenceCurve interpolates a power law exactly", "[model]")
{
  // S(b) = 1000 * b^0.5 through b = 100, 400, 1600: log-log interpolation reproduces it everywhere between.
  const ConvergenceCurve curve({{100, 10000, 3}, {400, 20000, 3}, {1600, 40000, 3}});
  for (int batch : {100, 150, 200, 399, 400, 800, 1234, 1600}) {
    const auto estimate = curve.samples_to_converge(batch);
    CHECK(estimate.samples == Approx(1000.0 * std::sqrt(batch)).epsilon(1e-12));
    CHECK_FALSE(estimate.extrapolated);
  }
}

TEST_CASE("model::ConvergenceCurve returns the nearest end, flagged, outside the points", "[model]")
{
  const ConvergenceCurve curve({{256, 2.5e6, 20}, {1024, 3.0e6, 20}});
  const auto below = curve.samples_to_converge(64);
  CHECK(below.samples == 2.5e6);
  CHECK(below.extrapolated);
  const auto above = curve.samples_to_converge(65536);
  CHECK(above.samples == 3.0e6);
  CHECK(above.extrapolated);
  CHECK_FALSE(curve.samples_to_converge(256).extrapolated);
  CHECK_FALSE(curve.samples_to_converge(1024).extrapolated);

  const ConvergenceCurve single({{8, 3000, 20}});
  CHECK(single.samples_to_converge(8).samples == 3000.0);
  CHECK_FALSE(single.samples_to_converge(8).extrapolated);
  CHECK(single.samples_to_converge(16).extrapolated);
}

TEST_CASE("model::ConvergenceCurve rejects empty, unsorted and non-positive points", "[model]")
{
  CHECK_THROWS_AS(ConvergenceCurve({}), std::invalid_argument);
  CHECK_THROWS_AS(ConvergenceCurve({{512, 1e6, 3}, {256, 1e6, 3}}), std::invalid_argument);
  CHECK_THROWS_AS(ConvergenceCurve({{256, 1e6, 3}, {256, 2e6, 3}}), std::invalid_argument);
  CHECK_THROWS_AS(ConvergenceCurve({{0, 1e6, 3}}), std::invalid_argument);
  CHECK_THROWS_AS(ConvergenceCurve({{256, 0, 3}}), std::invalid_argument);
  CHECK_THROWS_AS(ConvergenceCurve({{256, std::nan(""), 3}}), std::invalid_argument);
}

TEST_CASE("model::ConvergenceCurve is exact at the points of every committed table", "[model]")
{
  for (const auto& benchmark : kBenchmarks) {
    INFO(benchmark);
    const ConvergenceCurve curve = committed_curve(benchmark);
    REQUIRE(curve.points().size() >= 4);
    for (const ConvergencePoint& point : curve.points()) {
      INFO("global batch size " << point.global_batch_size);
      const auto estimate = curve.samples_to_converge(point.global_batch_size);
      CHECK(estimate.samples == point.value); // returned as stored: no tolerance needed
      CHECK_FALSE(estimate.extrapolated);
    }
  }
}

TEST_CASE("model::ConvergenceCurve is monotone between neighbouring points of every committed table", "[model]")
{
  for (const auto& benchmark : kBenchmarks) {
    const ConvergenceCurve curve = committed_curve(benchmark);
    const auto& points = curve.points();
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
      const ConvergencePoint& low = points[i];
      const ConvergencePoint& high = points[i + 1];
      INFO(benchmark << " between batch " << low.global_batch_size << " and " << high.global_batch_size);
      const double direction = high.value >= low.value ? 1.0 : -1.0;
      double previous = low.value;
      for (int batch = low.global_batch_size + 1; batch <= high.global_batch_size;
           batch += std::max(1, (high.global_batch_size - low.global_batch_size) / 97)) {
        const double samples = curve.samples_to_converge(batch).samples;
        // Relative slack of 1e-12 for the rounding of log/exp.
        CHECK(direction * (samples - previous) >= -1e-12 * previous);
        CHECK(samples >= std::min(low.value, high.value) * (1 - 1e-12));
        CHECK(samples <= std::max(low.value, high.value) * (1 + 1e-12));
        previous = samples;
      }
    }
  }
}
