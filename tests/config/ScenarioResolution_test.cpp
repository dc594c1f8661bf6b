// One resolution for every entry point: a scenario without `efficiency:` gets the calibration's
// efficiencies for the links its GPUs use, on one node and across nodes, read alone or as a sweep point.

#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "sim/config/SweepReader.hpp"
#include "sim/model/ScenarioResolution.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace gpuscale;

namespace {

std::string write_file(const std::string& name, const std::string& text)
{
  const auto path = std::filesystem::temp_directory_path() / ("gpuscale-resolution-" + name);
  std::ofstream(path) << text;
  return path.string();
}

const std::string kSource = GPUSCALE_SOURCE_DIR;
const std::string kBase = "  name: resolution\n  platform: " + kSource + "/platforms/dgx-h100-128node-fattree-2to1.yaml\n"
                          "  workload: " + kSource + "/workloads/bert-large.yaml\n"
                          "  global_batch_size: 4096\n  micro_batch_size: 8\n";

} // namespace

TEST_CASE("model::resolve_scenario applies the calibration and the same link fractions at any scale", "[config][resolution]")
{
  const model::Calibration& calibration = config::default_calibration();
  const auto one_node = config::read_scenario(write_file("one.yaml", "scenario:\n" + kBase + "  gpus: 8\n"));
  const auto many_nodes = config::read_scenario(write_file("many.yaml", "scenario:\n" + kBase + "  gpus: 64\n"));
  const auto used = one_node.platform.groups_used(8);
  REQUIRE_FALSE(used.empty());
  const auto& gpu = one_node.platform.gpu_type_of(one_node.platform.node_type_of_group(used.front().group));
  CHECK(gpu.generation == "hopper");
  const auto expect = calibration.efficiency_for(model::Benchmark::Bert, gpu.generation, gpu.generation_available_year);
  CHECK(one_node.scenario.efficiency.compute == expect.compute);
  CHECK(many_nodes.scenario.efficiency.memory == expect.memory);
  CHECK(many_nodes.scenario.efficiency.step_overhead_s == expect.step_overhead_s);
  // A link runs at its class's fraction whether the run spans one node or many.
  CHECK(one_node.scenario.links == calibration.link_fractions());
  CHECK(many_nodes.scenario.links == calibration.link_fractions());
  CHECK(many_nodes.scenario.links.of(model::LinkClass::NvSwitch, "hopper") ==
        calibration.network.at("nvswitch").value);
  CHECK(many_nodes.scenario.links.of(model::LinkClass::NvSwitch, "ampere") ==
        calibration.network.at("nvswitch@ampere").value);
  REQUIRE(many_nodes.convergence);
  // The calibrated per-run overhead is added to the table's own.
  const auto table = config::read_scenario(write_file("table.yaml", "scenario:\n" + kBase +
                                                                        "  gpus: 64\n  efficiency: {compute: 0.5}\n"));
  REQUIRE(table.convergence);
  CHECK(many_nodes.convergence->run_start_overhead_s ==
        Approx(table.convergence->run_start_overhead_s + calibration.overhead_s_for(model::Benchmark::Bert)).epsilon(1e-12));
  // ... and its samples to converge are the table's times the calibration's convergence factor for
  // BERT at this batch (4096: the benchmark's), point by point; a scenario with its own efficiencies
  // keeps the table's.
  const double factor = calibration.convergence_factor_for(model::Benchmark::Bert, 4096);
  CHECK(factor != 1.0); // the committed calibration measures BERT's submissions converging off the table
  const auto calibrated_points = many_nodes.convergence->curve().points();
  const auto table_points = table.convergence->curve().points();
  REQUIRE(calibrated_points.size() == table_points.size());
  for (std::size_t i = 0; i < table_points.size(); ++i)
    CHECK(calibrated_points[i].value == Approx(factor * table_points[i].value).epsilon(1e-12));
  // A scenario that states its efficiencies keeps them (the others at their defaults).
  CHECK(table.scenario.efficiency.compute == 0.5);
  CHECK_FALSE(table.scenario.efficiency.network.has_value());
  CHECK(table.scenario.links == calibration.link_fractions()); // the links' own, efficiencies given or not
  const auto what_if = config::read_scenario(write_file(
      "what_if.yaml", "scenario:\n" + kBase + "  gpus: 64\n  efficiency: {network: 0.5, collective_fixed: 2 us}\n"));
  CHECK(what_if.scenario.links.of(model::LinkClass::Nic, "") == 0.5);
  CHECK(what_if.scenario.links.nvls("hopper") == 0.5);
  CHECK(what_if.scenario.links.collective_fixed_s == Approx(2e-6));
}

TEST_CASE("config::read_sweep resolves every point as the scenario alone", "[config][resolution]")
{
  const auto spec = config::read_sweep(write_file("sweep.yaml", "scenario:\n" + kBase + "sweep:\n  gpus: [8, 64, 512]\n"));
  REQUIRE(spec.points.size() == 3);
  for (const auto& point : spec.points) {
    const auto alone = config::read_scenario(
        write_file("alone.yaml", "scenario:\n" + kBase + "  gpus: " + std::to_string(point.scenario.gpus) + "\n"));
    INFO(point.scenario.gpus << " GPUs");
    CHECK(point.scenario.links == alone.scenario.links);
    CHECK(point.scenario.efficiency.compute == alone.scenario.efficiency.compute);
    CHECK(point.scenario.efficiency.step_overhead_s == alone.scenario.efficiency.step_overhead_s);
    REQUIRE(point.convergence);
    CHECK(point.convergence->run_start_overhead_s == alone.convergence->run_start_overhead_s);
  }
}

TEST_CASE("model::resolve_scenario expands an uneven allocation for the GPUs of each point", "[config][resolution]")
{
  const std::string mixed = "  name: mixed\n  platform: " + kSource + "/platforms/mixed-a100-v100.yaml\n"
                            "  workload: " + kSource + "/workloads/resnet50.yaml\n  micro_batch_size: 32\n";
  const auto resolved = config::read_scenario(write_file(
      "mixed.yaml", "scenario:\n" + mixed + "  gpus: 40\n  global_batch_size: 2304\n  batch_allocation:\n"
                    "    - {accelerator: a100-sxm4-80gb, micro_batch_size: 64, accumulation_steps: 1}\n"
                    "    - {accelerator: v100-sxm2-16gb, micro_batch_size: 32, accumulation_steps: 1}\n"));
  // 32 A100 in the first four nodes, then 8 V100: ranks in node-group order.
  REQUIRE(resolved.scenario.batch_per_rank.size() == 40);
  CHECK(resolved.scenario.batch_per_rank[31] == model::BatchShare{64, 1});
  CHECK(resolved.scenario.batch_per_rank[32] == model::BatchShare{32, 1});
  CHECK(resolved.scenario.batch_per_rank.front() == model::BatchShare{64, 1});
  CHECK(resolved.scenario.batch_per_rank.back() == model::BatchShare{32, 1});
}

TEST_CASE("fp4 runs where the accelerator has that format's units and is refused, naming it, elsewhere",
          "[config][resolution][precision]")
{
  const std::string b200 = "scenario:\n  name: fp4\n  platform: " + kSource + "/platforms/dgx-b200-1node.yaml\n"
                           "  workload: " + kSource + "/workloads/bert-large.yaml\n"
                           "  global_batch_size: 64\n  micro_batch_size: 8\n  gpus: 8\n";
  for (const char* format : {"nvfp4", "mxfp4"}) {
    INFO(format);
    const auto read = config::read_scenario(write_file(std::string(format) + "-b200.yaml",
                                                       b200 + "  precision: " + format + "\n"));
    CHECK(read.scenario.precision == model::parse_precision(format));
  }
  // H100 has FP8 but no FP4 units: the run would silently be an fp8 one.
  CHECK_THROWS_WITH(config::read_scenario(write_file("nvfp4-h100.yaml", "scenario:\n" + kBase +
                                                                            "  gpus: 8\n  precision: nvfp4\n")),
                    Catch::Contains("accelerator 'h100-sxm5-80gb' has no NVFP4 units (it has fp32, tf32, fp16, bf16, fp8): "
                                    "set a precision it has"));
  CHECK_THROWS_WITH(config::read_scenario(write_file("mxfp4-h100.yaml", "scenario:\n" + kBase +
                                                                            "  gpus: 8\n  precision: mxfp4\n")),
                    Catch::Contains("accelerator 'h100-sxm5-80gb' has no MXFP4 units"));
}
