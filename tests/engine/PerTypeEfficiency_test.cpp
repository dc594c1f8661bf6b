// On a platform that mixes accelerator generations, each GPU type computes at its own generation's
// calibrated efficiency; a homogeneous run and a scenario's own `efficiency:` are as before.

#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "sim/engine/IterationSimulator.hpp"
#include "sim/engine/StepSetup.hpp"
#include "sim/model/ScenarioResolution.hpp"
#include "sim/model/SoftwareMaturity.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace gpuscale;

namespace {

const std::string kSource = GPUSCALE_SOURCE_DIR;

model::ResolvedScenario read(const std::string& name, const std::string& platform, int gpus,
                             const std::string& extra = "")
{
  const auto path = std::filesystem::temp_directory_path() / ("gpuscale-per-type-efficiency-" + name + ".yaml");
  std::ofstream(path) << "scenario:\n  name: " << name << "\n  platform: " << kSource << "/platforms/" << platform
                      << "\n  workload: " << kSource << "/workloads/resnet50.yaml\n  gpus: " << gpus
                      << "\n  global_batch_size: " << 32 * gpus << "\n  micro_batch_size: 32\n  executor: analytical\n"
                      << extra;
  return config::read_scenario(path.string());
}

/// A GPU of `gpu`'s compute speed under `calibration` for the workload's benchmark, as
/// calibration/mlperf.yaml documents it: peak x min(max, compute[benchmark] x generation[its generation] x
/// maturity at the calibration's reference date), an uncalibrated generation at the reference generation's fraction.
double calibrated_speed(const model::Calibration& calibration, const model::ResolvedScenario& r,
                        const model::GpuType& gpu)
{
  auto g = calibration.generation.find(gpu.generation);
  if (g == calibration.generation.end())
    g = calibration.generation.find(model::kReferenceGeneration);
  const double factor = g->second.value;
  const double maturity = model::software_maturity(
      calibration.maturity.at(model::maturity_at_launch_key(*r.workload.benchmark)).value,
      calibration.maturity.at(std::string(model::kMaturityGapKey)).value,
      model::software_age_years(calibration.software_reference_date->year, gpu.generation_available_year,
                                *r.workload.benchmark));
  const double compute = std::min(model::kMaxComputeEfficiency,
                                  calibration.compute.at(*r.workload.benchmark).value * factor * maturity);
  return gpu.peak_for(r.precision()).value() * compute;
}

} // namespace

TEST_CASE("engine::StepSetup: on a mixed A100 + V100 platform each type's ranks compute at their own generation's "
          "calibrated efficiency",
          "[engine][efficiency]")
{
  const model::Calibration& calibration = config::default_calibration();
  const auto r = read("mixed", "mixed-a100-v100.yaml", 64);
  const auto& a100 = r.platform.gpu_types.at("a100-sxm4-80gb");
  const auto& v100 = r.platform.gpu_types.at("v100-sxm2-16gb");
  REQUIRE(a100.generation != v100.generation);
  const engine::StepSetup setup(r);
  REQUIRE(setup.gpu_speed_flop_per_s.size() == 64);
  for (int rank : {0, 31})
    CHECK(setup.gpu_speed_flop_per_s[rank] == Approx(calibrated_speed(calibration, r, a100)).epsilon(1e-12));
  for (int rank : {32, 63})
    CHECK(setup.gpu_speed_flop_per_s[rank] == Approx(calibrated_speed(calibration, r, v100)).epsilon(1e-12));
  // Memory efficiency is the benchmark's, step overhead one per step; the row reports the first type's.
  const auto expect_v100 = calibration.efficiency_for(r.workload.benchmark, v100.generation, v100.generation_available_year);
  CHECK(r.scenario.efficiency_for(v100).compute == expect_v100.compute);
  CHECK(r.scenario.efficiency_for(v100).memory == expect_v100.memory);
  CHECK(r.scenario.efficiency.compute == calibration.efficiency_for(r.workload.benchmark, a100.generation, a100.generation_available_year).compute);
  CHECK(r.scenario.efficiency.step_overhead_s == expect_v100.step_overhead_s);
}

TEST_CASE("engine::StepSetup: a homogeneous run and a scenario's own efficiency: apply one efficiency to every GPU",
          "[engine][efficiency]")
{
  const model::Calibration& calibration = config::default_calibration();
  const auto homogeneous = read("homogeneous", "dgx-a100-1node.yaml", 8);
  CHECK(homogeneous.scenario.efficiency_by_type.empty());
  const auto& a100 = homogeneous.platform.gpu_type_of(homogeneous.platform.node_type_of_group(0));
  CHECK(homogeneous.scenario.efficiency.compute ==
        calibration.efficiency_for(homogeneous.workload.benchmark, a100.generation, a100.generation_available_year).compute);
  for (double speed : engine::StepSetup(homogeneous).gpu_speed_flop_per_s)
    CHECK(speed == Approx(calibrated_speed(calibration, homogeneous, a100)).epsilon(1e-12));

  const auto given = read("given", "mixed-a100-v100.yaml", 64, "  efficiency: {compute: 0.3, memory: 0.6}\n");
  CHECK(given.scenario.efficiency_by_type.empty());
  const engine::StepSetup setup(given);
  for (int rank = 0; rank < 64; ++rank) {
    const auto& gpu = given.platform.gpu_types.at(setup.topology.gpu_type[static_cast<std::size_t>(rank)]);
    CHECK(setup.gpu_speed_flop_per_s[static_cast<std::size_t>(rank)] ==
          Approx(gpu.peak_for(given.precision()).value() * 0.3).epsilon(1e-12));
    CHECK(given.scenario.efficiency_for(gpu).memory == 0.6);
  }
}

TEST_CASE("engine: a mixed run's step time follows the V100 generation factor of the calibration",
          "[engine][efficiency]")
{
  // Uniform shares: the V100s are the stragglers, so their compute speed sets the step.
  const auto mixed = read("behaviour", "mixed-a100-v100.yaml", 64);
  const auto& v100 = mixed.platform.gpu_types.at("v100-sxm2-16gb");
  const auto step_s = [&](double v100_factor) {
    model::Calibration calibration = config::default_calibration();
    calibration.generation[v100.generation].value = v100_factor;
    auto r = mixed;
    model::ScenarioInputs inputs;
    inputs.calibration = &calibration;
    REQUIRE(model::resolve_in_place(r, inputs).empty());
    return engine::simulate_iteration(r, model::StepExecutorKind::Analytical).iteration_time_s;
  };
  const double slow = step_s(0.3), fast = step_s(0.6);
  CHECK(slow > fast);
  // The A100s alone do not change with it.
  const auto a100_only = read("a100-only", "mixed-a100-v100.yaml", 32);
  auto r = a100_only;
  model::Calibration calibration = config::default_calibration();
  calibration.generation[v100.generation].value = 0.3;
  model::ScenarioInputs inputs;
  inputs.calibration = &calibration;
  REQUIRE(model::resolve_in_place(r, inputs).empty());
  CHECK(engine::simulate_iteration(r, model::StepExecutorKind::Analytical).iteration_time_s ==
        engine::simulate_iteration(a100_only, model::StepExecutorKind::Analytical).iteration_time_s);
}
