#include "sim/config/ConfigError.hpp"
#include "sim/config/KernelTimingReader.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <variant>

using namespace gpuscale;

TEST_CASE("config::read_kernel_timings reads what measure_kernels.py writes", "[config]")
{
  const auto file =
      config::read_kernel_timings(std::string(GPUSCALE_SOURCE_DIR) + "/tests/data/kernel_timings/cpu_smoke.yaml");
  const auto& environment = file.environment;
  const auto device =
      std::find_if(environment.begin(), environment.end(), [](const auto& e) { return e.first == "device"; });
  REQUIRE(device != environment.end());
  CHECK(device->second == "cpu");
  REQUIRE(file.timings.size() == 21);
  const auto& launch = file.timings.front();
  CHECK(launch.source == model::KernelSource::Launch);
  CHECK(launch.pass == model::KernelPass::Forward);
  CHECK(launch.precision == model::Precision::Fp32);
  CHECK(launch.count == 1);
  CHECK(launch.line == 7); // after four comment lines, `environment:` and `timings:`
  REQUIRE(std::holds_alternative<model::ElementwiseShape>(launch.kernel.shape));
  CHECK(std::get<model::ElementwiseShape>(launch.kernel.shape).elements == 1);

  const auto conv = std::find_if(file.timings.begin(), file.timings.end(), [](const model::KernelTiming& t) {
    return t.layer == "unet.conv-in" && t.pass == model::KernelPass::InputGradient;
  });
  REQUIRE(conv != file.timings.end());
  CHECK(conv->source == model::KernelSource::Trace);
  CHECK(conv->workload == "stable-diffusion");
  CHECK(conv->micro_batch == 1);
  CHECK(conv->graph_s == Approx(0.013768));
  REQUIRE(conv->eager_s);
  CHECK(*conv->eager_s == Approx(0.013768));
  REQUIRE(std::holds_alternative<model::ConvShape>(conv->kernel.shape));
  const auto& shape = std::get<model::ConvShape>(conv->kernel.shape);
  CHECK(shape.h == 64);
  CHECK(shape.k == 320);
  CHECK(shape.r == 3);
  CHECK(conv->kernel.backward_factor == 2);

  const auto attention = std::count_if(file.timings.begin(), file.timings.end(), [](const model::KernelTiming& t) {
    return std::holds_alternative<model::AttentionShape>(t.kernel.shape);
  });
  CHECK(attention == 2);
}
