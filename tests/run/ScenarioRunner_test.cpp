// The results row of a run records what executed its step.

#include "sim/run/ScenarioRunner.hpp"
#include "tests/support/SyntheticPlatforms.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

TEST_CASE("run::run_scenario records the executor and takes the analytical one's step time", "[app][executor]")
{
  auto resolved = testing::synthetic_scenario(testing::synthetic_platform(1, 4, 100e9, 1e-6),
                                              testing::synthetic_workload({10e6, 10e6}, 1e9), 4, 2);
  const auto simgrid = run::run_scenario(resolved, true).record;
  resolved.scenario.executor = model::StepExecutorKind::Analytical;
  const auto analytical = run::run_scenario(resolved, false).record;
  CHECK(simgrid.executor == "simgrid");
  CHECK(analytical.executor == "analytical");
  // One node, one data-parallel ring: nothing shares a link, so the rows differ only in the executor.
  CHECK(analytical.iter_time_s == Approx(simgrid.iter_time_s).epsilon(1e-6));
  CHECK(analytical.bytes_sent_per_gpu == simgrid.bytes_sent_per_gpu);
}
