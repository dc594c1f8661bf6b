#include "sim/config/ConvergenceReader.hpp"
#include "sim/model/ConvergenceFit.hpp"
#include "sim/model/ConvergenceModel.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

using gpuscale::model::ConvergenceCurve;
using gpuscale::model::ConvergenceFit;
using gpuscale::model::ConvergenceModel;
using gpuscale::model::ConvergencePoint;
using gpuscale::model::predict_largest_held_out;

namespace {

const std::vector<std::string> kBenchmarks{"bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion"};

ConvergenceModel committed_model(const std::string& benchmark)
{
  return gpuscale::config::read_convergence(std::string(GPUSCALE_SOURCE_DIR) + "/workloads/convergence/" + benchmark +
                                            ".yaml")
      .model();
}

/// E(B) = E_min (1 + B / B_noise) at the given batch sizes, each value times its factor.
std::vector<ConvergencePoint> mccandlish_points(double min_samples, double noise_batch, const std::vector<int>& batches,
                                                const std::vector<double>& factors)
{
  std::vector<ConvergencePoint> points;
  for (std::size_t i = 0; i < batches.size(); ++i)
    points.push_back({batches[i], min_samples * (1 + batches[i] / noise_batch) * factors[i], 10});
  return points;
}

/// The leave-largest-out relative error of a committed table, printed so a test log shows all five.
double held_out_error(const std::string& benchmark)
{
  const auto held_out = predict_largest_held_out(committed_model(benchmark).curve());
  REQUIRE(held_out);
  WARN(benchmark << ": largest batch " << held_out->global_batch_size << " measured " << held_out->measured_samples
                 << " samples, predicted from the others " << held_out->predicted.samples << " ["
                 << held_out->predicted.samples_low << ", " << held_out->predicted.samples_high << "], error "
                 << 100 * held_out->relative_error() << " %, " << (held_out->covered() ? "inside" : "OUTSIDE")
                 << " the 95 % interval");
  CHECK(held_out->predicted.extrapolated);
  return held_out->relative_error();
}

} // namespace

TEST_CASE("model::ConvergenceFit recovers E_min and B_noise from points on the McCandlish curve", "[model]")
{
  const ConvergenceFit fit(mccandlish_points(2e6, 1500, {128, 256, 512, 1024, 4096}, {1, 1, 1, 1, 1}));
  CHECK(fit.min_samples() == Approx(2e6).epsilon(1e-10));
  CHECK(fit.noise_batch_size() == Approx(1500).epsilon(1e-10));
  CHECK(fit.min_steps() == Approx(2e6 / 1500).epsilon(1e-10)); // S_min = E_min / B_noise
  CHECK(fit.relative_scatter() == Approx(0).margin(1e-12));
  CHECK(fit.degrees_of_freedom() == 3);
  CHECK(fit.constraint().empty());
  // Steps S(B) = S_min (1 + B_noise / B) follow from the same two numbers.
  CHECK(fit.samples_at(3000) / 3000 == Approx(fit.min_steps() * (1 + 1500.0 / 3000)).epsilon(1e-10));
}

TEST_CASE("model::ConvergenceFit minimises the relative residuals", "[model]")
{
  const auto points = mccandlish_points(1e5, 64, {8, 16, 32, 64, 256}, {1.04, 0.97, 1.02, 0.95, 1.03});
  const ConvergenceFit fit(points);
  // At the least-squares optimum the relative residuals are orthogonal to both regressors (1/E, B/E),
  // and s^2 is their sum of squares over n - 2.
  double along_a = 0, along_b = 0, squares = 0;
  for (const auto& p : points) {
    const double r = (fit.samples_at(p.global_batch_size) - p.value) / p.value;
    along_a += r / p.value;
    along_b += r * p.global_batch_size / p.value;
    squares += r * r;
  }
  CHECK(along_a * 1e5 == Approx(0).margin(1e-12));
  CHECK(along_b * 1e5 / 256 == Approx(0).margin(1e-12));
  CHECK(fit.relative_scatter() == Approx(std::sqrt(squares / 3)).epsilon(1e-12));
  CHECK(fit.min_samples_error() > 0);
  CHECK(fit.min_steps_error() > 0);
}

TEST_CASE("model::ConvergenceFit holds a parameter at 0 where the unconstrained optimum breaks the physics", "[model]")
{
  // Samples falling with the batch would need S_min < 0: held at 0, E constant = sum(1/E) / sum(1/E^2).
  const ConvergenceFit falling({{100, 4e6, 10}, {200, 3.5e6, 10}, {400, 3e6, 10}});
  CHECK(falling.constraint() == "S_min = 0");
  CHECK(falling.min_steps() == 0);
  CHECK(std::isinf(falling.noise_batch_size()));
  const double inverse = 1 / 4e6 + 1 / 3.5e6 + 1 / 3e6;
  const double inverse_squares = 1 / 16e12 + 1 / 12.25e12 + 1 / 9e12;
  CHECK(falling.min_samples() == Approx(inverse / inverse_squares).epsilon(1e-12));
  CHECK(falling.degrees_of_freedom() == 2);
  // Samples growing faster than the batch (E ~ B^2) would need E_min < 0: held at 0, constant steps.
  const ConvergenceFit steep({{100, 1e4, 10}, {200, 4e4, 10}, {400, 16e4, 10}});
  CHECK(steep.constraint() == "E_min = 0");
  CHECK(steep.min_samples() == 0);
  CHECK(steep.noise_batch_size() == 0);
  CHECK_THROWS_AS(ConvergenceFit({{100, 1e4, 10}, {200, 4e4, 10}}), std::invalid_argument);
}

TEST_CASE("model::ConvergenceModel interpolates inside the points exactly as the curve does", "[model]")
{
  for (const auto& benchmark : kBenchmarks) {
    const ConvergenceModel model = committed_model(benchmark);
    const auto& curve = model.curve();
    for (int batch = curve.min_global_batch_size(); batch <= curve.max_global_batch_size(); batch += 7) {
      INFO(benchmark << " at global batch " << batch);
      const auto estimate = model.samples_to_converge(batch);
      CHECK(estimate.samples == curve.samples_to_converge(batch).samples);
      CHECK(estimate.samples_low == estimate.samples);
      CHECK(estimate.samples_high == estimate.samples);
      CHECK_FALSE(estimate.extrapolated);
    }
  }
}

TEST_CASE("model::ConvergenceModel extrapolates the fit's growth from the nearest end point", "[model]")
{
  // Points exactly on E = 1e6 (1 + B / 1000): the model is the curve itself beyond the range, with
  // a zero-width interval (no scatter, no parameter uncertainty).
  const ConvergenceModel model(ConvergenceCurve(mccandlish_points(1e6, 1000, {250, 500, 1000, 2000}, {1, 1, 1, 1})));
  for (int batch : {2001, 4000, 65536}) {
    INFO("global batch " << batch);
    const auto estimate = model.samples_to_converge(batch);
    CHECK(estimate.extrapolated);
    CHECK(estimate.samples == Approx(1e6 * (1 + batch / 1000.0)).epsilon(1e-9));
    CHECK(estimate.samples_low == Approx(estimate.samples).epsilon(1e-9));
    CHECK(estimate.samples_high == Approx(estimate.samples).epsilon(1e-9));
  }
  // Below the smallest batch: the smallest point's samples; the interval reaches down to the fit's.
  for (int batch : {16, 100}) {
    INFO("global batch " << batch);
    const auto estimate = model.samples_to_converge(batch);
    CHECK(estimate.extrapolated);
    CHECK(estimate.samples == 1.25e6);
    CHECK(estimate.samples_low == Approx(1e6 * (1 + batch / 1000.0)).epsilon(1e-9));
    CHECK(estimate.samples_high == Approx(1.25e6).epsilon(1e-9));
  }
  // Two points give no fit: the nearest end's value, interval unknown.
  const ConvergenceModel two(ConvergenceCurve({{100, 1e6, 3}, {200, 1.5e6, 3}}));
  CHECK_FALSE(two.fit());
  CHECK(two.samples_to_converge(400).samples == 1.5e6);
  CHECK(std::isnan(two.samples_to_converge(400).samples_high));
}

TEST_CASE("model::ConvergenceModel samples to converge never fall as the batch grows beyond the points", "[model][property]")
{
  std::mt19937 random(20261201);
  std::uniform_real_distribution<double> noise(0.8, 1.25);
  std::uniform_real_distribution<double> log_noise_batch(std::log(16.0), std::log(65536.0));
  std::vector<ConvergenceModel> models;
  for (const auto& benchmark : kBenchmarks)
    models.push_back(committed_model(benchmark));
  for (int table = 0; table < 200; ++table) { // generated tables, noisy, some falling, some steep
    std::vector<int> batches{64};
    std::uniform_int_distribution<int> step(2, 40);
    for (int i = 0; i < 2 + table % 8; ++i)
      batches.push_back(batches.back() + step(random) * 32);
    std::vector<double> factors;
    for (std::size_t i = 0; i < batches.size(); ++i)
      factors.push_back(noise(random));
    models.emplace_back(ConvergenceCurve(mccandlish_points(1e6, std::exp(log_noise_batch(random)), batches, factors)));
  }
  for (std::size_t m = 0; m < models.size(); ++m) {
    const auto& model = models[m];
    const int largest = model.curve().max_global_batch_size();
    double previous = model.samples_to_converge(largest).samples;
    for (double batch = largest + 1; batch < 1e7; batch *= 1.3) {
      const auto estimate = model.samples_to_converge(static_cast<int>(batch));
      INFO("table " << m << " at global batch " << static_cast<int>(batch));
      CHECK(estimate.samples >= previous);
      CHECK(estimate.samples_low <= estimate.samples);
      CHECK(estimate.samples <= estimate.samples_high);
      previous = estimate.samples;
    }
  }
}

// Leave-largest-out, one test per committed table: drop the largest-batch point, fit the others,
// predict it. Figures and reasons in docs/WORKLOADS.md; the target is 25 % for RetinaNet, Stable
// Diffusion and Llama 2 LoRA.
TEST_CASE("model::ConvergenceModel predicts RetinaNet's largest batch from the others within 25 percent", "[model]")
{
  CHECK(std::abs(held_out_error("retinanet")) <= 0.25);
}

TEST_CASE("model::ConvergenceModel predicts Stable Diffusion's largest batch from the others within 25 percent", "[model]")
{
  CHECK(std::abs(held_out_error("stable_diffusion")) <= 0.25);
}

TEST_CASE("model::ConvergenceModel predicts BERT's largest batch from the others within 25 percent", "[model]")
{
  CHECK(std::abs(held_out_error("bert")) <= 0.25);
}

TEST_CASE("model::ConvergenceModel predicts ResNet's largest batch from the others within 25 percent", "[model]")
{
  CHECK(std::abs(held_out_error("resnet")) <= 0.25);
}

TEST_CASE("model::ConvergenceModel misses Llama 2 LoRA's largest batch by the documented 55 percent", "[model]")
{
  // The three points below 128 grow almost linearly (B_noise ~ 19); at 128 the reference runs need
  // 1.87 x the samples of 32 for 4 x the batch. The target of 25 % is missed; the figure is pinned
  // so that docs/WORKLOADS.md stays true.
  CHECK(held_out_error("llama2_70b_lora") == Approx(0.552).margin(0.005));
}

TEST_CASE("model::ConvergenceModel below the smallest batch holds what the MLPerf logs converge in", "[model]")
{
  // Olympic means of the valid runs' samples to converge in shared/mlperf's runs_calibration.csv, at
  // batch sizes below each table's smallest reference batch (see docs/WORKLOADS.md).
  struct Logged {
    const char* benchmark;
    int global_batch_size;
    double samples;
  };
  for (const Logged& logged : {Logged{"bert", 66, 2.95494e6}, Logged{"bert", 176, 2.3361e6},
                               Logged{"retinanet", 64, 4.6812e6}, Logged{"retinanet", 128, 4.53492e6},
                               Logged{"resnet", 408, 4.51255e7}, Logged{"resnet", 1024, 4.48408e7}}) {
    INFO(logged.benchmark << " at global batch " << logged.global_batch_size);
    const ConvergenceModel model = committed_model(logged.benchmark);
    const auto estimate = model.samples_to_converge(logged.global_batch_size);
    CHECK(estimate.extrapolated);
    CHECK(estimate.samples == model.curve().points().front().value);
    CHECK(estimate.samples_low <= logged.samples);
    CHECK(logged.samples <= estimate.samples_high);
  }
}
