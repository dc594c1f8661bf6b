#include "analysis/calibration/StepRateCheck.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

analysis::CalibrationCase step_case(const std::string& system, model::Benchmark benchmark, int nodes, double iteration_s,
                                    double logged_rate, double host_limit_s = 0)
{
  analysis::CalibrationCase c;
  c.round = "v4.1";
  c.submitter = "Acme";
  c.system = system;
  c.family = "h100-sxm5-80gb";
  c.benchmark = benchmark;
  c.accelerators = 8 * nodes;
  c.nodes = nodes;
  c.global_batch_size = 768;
  c.iteration_s = iteration_s;
  c.host_limit_s = host_limit_s;
  c.logged_rate_samples_per_s = logged_rate;
  return c;
}

} // namespace

TEST_CASE("analysis::check_step_rates compares the simulated step with the logged training rate", "[calibration]")
{
  using model::Benchmark;
  // 768 samples per 0.1 s step: 7,680 samples/s simulated.
  const std::vector<analysis::CalibrationCase> cases{
      step_case("a", Benchmark::Bert, 1, 0.1, 8000),      // -4 %
      step_case("b", Benchmark::Bert, 1, 0.1, 7680),      //  0 %
      step_case("c", Benchmark::Bert, 1, 0.1, 6400),      // +20 %
      step_case("d", Benchmark::Bert, 2, 0.1, 7000),      // +9.7 %: several nodes, its own group
      step_case("e", Benchmark::Bert, 1, 0.1, 0),         // no logged rate: skipped
      step_case("f", Benchmark::Resnet, 1, 0.1, 3840, 0.2), // the host feeds 3,840 samples/s: 0 %
  };
  const auto check = analysis::check_step_rates(cases);
  REQUIRE(check.results.size() == 5);
  CHECK(check.results.front().key == "v4.1/Acme/a/bert"); // sorted by error
  CHECK(check.results.front().error_pct == Approx(-4.0));
  CHECK(check.results.back().key == "v4.1/Acme/c/bert");
  CHECK(check.results.back().simulated_samples_per_s == Approx(7680.0));
  CHECK(check.results.back().error_pct == Approx(20.0));
  REQUIRE(check.groups.size() == 3);
  CHECK((check.groups[0].benchmark == Benchmark::Bert && !check.groups[0].several_nodes && check.groups[0].results == 3));
  CHECK(check.groups[0].median_error_pct == Approx(0.0).margin(1e-12));
  CHECK(check.groups[0].median_abs_error_pct == Approx(4.0));
  CHECK((check.groups[1].benchmark == Benchmark::Bert && check.groups[1].several_nodes && check.groups[1].results == 1));
  CHECK(check.groups[1].median_error_pct == Approx(100.0 * (7680.0 / 7000 - 1)));
  CHECK((check.groups[2].benchmark == Benchmark::Resnet && check.groups[2].median_error_pct == Approx(0.0).margin(1e-12)));
  // By accelerator, one node only: BERT's three, ResNet's one.
  REQUIRE(check.families.size() == 2);
  CHECK((check.families[0].benchmark == Benchmark::Bert && check.families[0].family == "h100-sxm5-80gb" &&
         check.families[0].results == 3));
  CHECK(check.families[0].median_error_pct == Approx(0.0).margin(1e-12));
  CHECK((check.families[1].benchmark == Benchmark::Resnet && check.families[1].results == 1));
}
