// The readers on the shipped data and on bad input: every problem located (file:line:column, path).

#include "sim/config/ConfigError.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "sim/config/SweepReader.hpp"
#include "sim/config/WorkloadReader.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace gpuscale;
namespace fs = std::filesystem;

namespace {

/// Writes `text` to a fresh file in a per-test temporary directory and returns its path.
std::string write_temp(const std::string& name, const std::string& text)
{
  const fs::path dir = fs::temp_directory_path() / ("gpuscale-config-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

std::string errors_of(const std::function<void()>& read)
{
  try {
    read();
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

const std::string kCatalog = "imports: [" + std::string(GPUSCALE_SOURCE_DIR) + "/platforms/catalog/accelerators.yaml, " +
                             GPUSCALE_SOURCE_DIR + "/platforms/catalog/node_types.yaml]\n";

} // namespace

TEST_CASE("config readers accept every shipped platform, workload and scenario", "[config]")
{
  int files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(GPUSCALE_SOURCE_DIR) / "platforms"))
    if (entry.path().extension() == ".yaml") {
      INFO(entry.path());
      const auto platform = config::read_platform(entry.path().string());
      CHECK(platform.gpu_count() > 0);
      ++files;
    }
  for (const auto& entry : fs::directory_iterator(fs::path(GPUSCALE_SOURCE_DIR) / "workloads"))
    if (entry.path().extension() == ".yaml") {
      INFO(entry.path());
      const auto workload = config::read_workload(entry.path().string());
      CHECK(workload.forward_flop_per_sample() > 0);
      ++files;
    }
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(GPUSCALE_SOURCE_DIR) / "scenarios"))
    if (entry.path().extension() == ".yaml") {
      INFO(entry.path());
      std::ifstream in(entry.path());
      const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
      if (text.find("\nsweep:") != std::string::npos)
        CHECK(config::read_sweep(entry.path().string()).points.size() > 0);
      else
        CHECK_NOTHROW(config::read_scenario(entry.path().string()));
      ++files;
    }
  CHECK(files >= 15);
}

TEST_CASE("config::read_platform converts the catalog's unit strings to SI", "[config]")
{
  const auto platform = config::read_platform(std::string(GPUSCALE_SOURCE_DIR) + "/platforms/dgx-h100-1node.yaml");
  const auto& node = platform.node_types.at("dgx-h100");
  CHECK(node.nic_bw_Bps == 400e9 / 8);
  const auto& gpu = platform.gpu_types.at(node.gpu_type);
  CHECK(gpu.peak_for(model::Precision::Bf16).value() == Approx(989.4e12).epsilon(0.01));
  CHECK(platform.gpu_count() == 8);
}

TEST_CASE("every built-in catalog accelerator has its compute-unit count", "[config][catalog]")
{
  const auto catalog =
      config::read_platform_catalog(std::string(GPUSCALE_SOURCE_DIR) + "/platforms/catalog/accelerators.yaml");
  REQUIRE(catalog.gpu_types.size() >= 30);
  for (const auto& [name, gpu] : catalog.gpu_types) {
    INFO(name);
    CHECK(gpu.compute_units > 0);
  }
  CHECK(catalog.gpu_types.at("h100-sxm5-80gb").compute_units == 132);
  CHECK(catalog.gpu_types.at("h100-pcie-80gb").compute_units == 114);
  CHECK(catalog.gpu_types.at("a100-sxm4-80gb").compute_units == 108);
  CHECK(catalog.gpu_types.at("mi300x").compute_units == 304);
  CHECK(catalog.gpu_types.at("gaudi3").compute_units == 8);
}

/// A user catalog of one accelerator with only the required fields; the optional ones are appended.
const std::string kToyAcceleratorCatalog = R"(accelerators:
  - name: toy-gpu
    vendor: nvidia
    peak: {bf16: "100 TFLOP/s"}
    memory: "16 GiB"
    memory_bandwidth: "1 TB/s"
    intra_node_bandwidth: "100 GB/s"
    tdp: "300 W"
)";

TEST_CASE("compute_units is optional in a user catalog: absent reads as 0 (unknown)", "[config][catalog]")
{
  const std::string entry = kToyAcceleratorCatalog;
  const std::string without = write_temp("no-compute-units.yaml", entry);
  CHECK(config::read_platform_catalog(without).gpu_types.at("toy-gpu").compute_units == 0);
  const std::string with = write_temp("compute-units.yaml", entry + "    compute_units: 40\n");
  CHECK(config::read_platform_catalog(with).gpu_types.at("toy-gpu").compute_units == 40);
}

TEST_CASE("the built-in catalog's FP4 peaks: dense, on Blackwell and CDNA4 only, NVFP4 on NVIDIA only", "[config][catalog]")
{
  const auto catalog =
      config::read_platform_catalog(std::string(GPUSCALE_SOURCE_DIR) + "/platforms/catalog/accelerators.yaml");
  const auto peak = [&](const std::string& name, model::Precision p) {
    const auto& peaks = catalog.gpu_types.at(name).peak_flop_per_s;
    return peaks.contains(p) ? peaks.at(p) : 0.0;
  };
  using model::Precision;
  CHECK(peak("b200-sxm-180gb", Precision::Nvfp4) == Approx(9e15));
  CHECK(peak("gb200", Precision::Nvfp4) == Approx(10e15));
  CHECK(peak("b300-sxm-288gb", Precision::Nvfp4) == Approx(13.5e15));
  CHECK(peak("gb300", Precision::Nvfp4) == Approx(15e15));
  for (const char* name : {"b200-sxm-180gb", "gb200", "b300-sxm-288gb", "gb300"}) {
    INFO(name);
    CHECK(peak(name, Precision::Mxfp4) == peak(name, Precision::Nvfp4));
    CHECK(peak(name, Precision::Nvfp4) >= 2 * peak(name, Precision::Fp8)); // FP4 at least doubles FP8
  }
  CHECK(peak("mi355x", Precision::Mxfp4) == Approx(10066.3e12));
  CHECK(peak("mi350x", Precision::Mxfp4) == Approx(9227.5e12));
  CHECK(peak("mi350x", Precision::Fp8) == Approx(4613.7e12));
  CHECK(catalog.gpu_types.at("mi350x").memory_bytes == Approx(288e9));
  for (const char* name : {"mi355x", "mi350x", "h100-sxm5-80gb", "h200-sxm-141gb", "mi300x", "gaudi3"}) {
    INFO(name);
    CHECK(peak(name, Precision::Nvfp4) == 0.0);
  }
  CHECK(peak("h100-sxm5-80gb", Precision::Mxfp4) == 0.0);
}

TEST_CASE("every built-in catalog accelerator states when it became available", "[config][catalog]")
{
  const auto catalog =
      config::read_platform_catalog(std::string(GPUSCALE_SOURCE_DIR) + "/platforms/catalog/accelerators.yaml");
  for (const auto& [name, gpu] : catalog.gpu_types) {
    INFO(name);
    CHECK(gpu.available_since_year >= 2017.0);
    CHECK(gpu.available_since_year < 2027.0);
  }
  // Generations come in order.
  CHECK(catalog.gpu_types.at("v100-sxm2-16gb").available_since_year <
        catalog.gpu_types.at("a100-sxm4-40gb").available_since_year);
  CHECK(catalog.gpu_types.at("a100-sxm4-40gb").available_since_year <
        catalog.gpu_types.at("h100-sxm5-80gb").available_since_year);
  CHECK(catalog.gpu_types.at("h100-sxm5-80gb").available_since_year <
        catalog.gpu_types.at("b200-sxm-180gb").available_since_year);
}

TEST_CASE("available_since is optional: 'YYYY-MM' reads as the decimal year of the month's first day", "[config][catalog]")
{
  const std::string entry = kToyAcceleratorCatalog;
  CHECK(config::read_platform_catalog(write_temp("no-date.yaml", entry)).gpu_types.at("toy-gpu").available_since_year == 0);
  const auto dated = config::read_platform_catalog(write_temp("date.yaml", entry + "    available_since: \"2023-04\"\n"));
  CHECK(dated.gpu_types.at("toy-gpu").available_since_year == Approx(2023.0 + 90.0 / 365.0)); // 1 April: day 91
  const auto january = config::read_platform_catalog(write_temp("january.yaml", entry + "    available_since: 2024-01\n"));
  CHECK(january.gpu_types.at("toy-gpu").available_since_year == 2024.0);
  CHECK_THROWS_WITH(config::read_platform_catalog(write_temp("bad-date.yaml", entry + "    available_since: \"2024-1\"\n")),
                    Catch::Contains("/accelerators/0/available_since: expected a month 'YYYY-MM' (years 1990-2100), got '2024-1'"));
}

TEST_CASE("config::read_platform rejects unknown keys with their location", "[config]")
{
  const std::string path = write_temp("unknown-key.yaml", kCatalog + R"(cluster:
  name: c
  node_groups:
    - node_type: dgx-h100
      count: 1
      colour: blue
  fabric:
    topology: single_switch
    switch_latency: "1 us"
)");
  CHECK(errors_of([&] { config::read_platform(path); }) ==
        path + ":7:7: error: /cluster/node_groups/0/colour: unknown key 'colour' (known keys: count, node_type)");
}

TEST_CASE("config::read_platform lists the known accelerators for an unknown one", "[config]")
{
  const std::string path = write_temp("unknown-gpu.yaml", kCatalog + R"(node_types:
  - name: box
    accelerator: h100x
    accelerators_per_node: 8
    intra_node: {fabric: nvswitch, bandwidth: "450 GB/s", latency: "1 us"}
    pcie: {bandwidth: "64 GB/s", latency: "1 us"}
    nics: {count: 8, bandwidth: "400 Gb/s", latency: "1 us"}
    host: {cpu: x, sockets: 2, cores_per_socket: 8}
cluster:
  name: c
  node_groups: [{node_type: box, count: 1}]
  fabric: {topology: single_switch, switch_latency: "1 us"}
)");
  const std::string errors = errors_of([&] { config::read_platform(path); });
  CHECK_THAT(errors, Catch::StartsWith(path + ":4:18: error: /node_types/0/accelerator: unknown accelerator 'h100x' (known: "));
  CHECK_THAT(errors, Catch::Contains("h100-sxm5-80gb"));
}

TEST_CASE("config::read_platform reports every problem of a file at once", "[config]")
{
  const std::string path = write_temp("many.yaml", kCatalog + R"(cluster:
  name: c
  node_groups:
    - node_type: dgx-h100
      count: eight
  fabric:
    topology: torus
    switch_latency: 5
)");
  const std::string errors = errors_of([&] { config::read_platform(path); });
  CHECK_THAT(errors, Catch::Contains(path + ":6:14: error: /cluster/node_groups/0/count: expected an integer, got 'eight'"));
  CHECK_THAT(errors, Catch::Contains(path + ":8:15: error: /cluster/fabric/topology: unknown fabric topology 'torus'"));
  CHECK_THAT(errors, Catch::Contains(path + ":9:21: error: /cluster/fabric/switch_latency: expected a duration such as \"1 us\", got '5' (a number needs an explicit unit)"));
}

TEST_CASE("config::read_platform rejects negative bandwidth and malformed YAML with locations", "[config]")
{
  const std::string negative = write_temp("negative.yaml", R"(node_types:
  - name: box
    accelerator: g
    accelerators_per_node: 8
    intra_node: {fabric: nvswitch, bandwidth: "-450 GB/s", latency: "1 us"}
)");
  CHECK_THAT(errors_of([&] { config::read_platform(negative); }),
             Catch::Contains(negative + ":5:47: error: /node_types/0/intra_node/bandwidth: expected a non-negative value, got '-450 GB/s'"));
  const std::string broken = write_temp("broken.yaml", "cluster:\n  name: [unclosed\n");
  CHECK_THAT(errors_of([&] { config::read_platform(broken); }), Catch::StartsWith(broken + ":3:1: error: YAML syntax error"));
}

TEST_CASE("config::read_workload rejects negative FLOPs, unknown kinds and duplicate names", "[config]")
{
  const std::string path = write_temp("bad-workload.yaml", R"(workload:
  name: w
  precision: bf16
  sample: image
  optimizer: adam
  layers:
    - {name: a, kind: conv, trainable_params: 1, frozen_params: 0, forward_flops_per_sample: "-1 FLOP", backward_flops_per_sample: "2 FLOP", activation_bytes_per_sample: "1 B", recomputed: false}
    - {name: a, kind: convolution, trainable_params: 1, frozen_params: 0, forward_flops_per_sample: "1 FLOP", backward_flops_per_sample: "2 FLOP", activation_bytes_per_sample: "1 B", recomputed: false}
)");
  const std::string errors = errors_of([&] { config::read_workload(path); });
  CHECK_THAT(errors, Catch::Contains(path + ":7:94: error: /workload/layers/0/forward_flops_per_sample: expected a non-negative value, got '-1 FLOP'"));
  CHECK_THAT(errors, Catch::Contains(path + ":8:14: error: /workload/layers/1/name: duplicate layer name 'a'"));
  CHECK_THAT(errors, Catch::Contains(path + ":8:23: error: /workload/layers/1/kind: unknown layer kind 'convolution'"));
}

TEST_CASE("config::read_scenario checks GPU count and batch divisibility against the platform", "[config]")
{
  const std::string root = GPUSCALE_SOURCE_DIR;
  const std::string path = write_temp("bad-scenario.yaml", "scenario:\n  name: s\n  platform: " + root +
                                                               "/platforms/dgx-a100-1node.yaml\n  workload: " + root +
                                                               "/workloads/resnet50.yaml\n  gpus: 16\n"
                                                               "  global_batch_size: 1000\n  micro_batch_size: 64\n");
  const std::string errors = errors_of([&] { config::read_scenario(path); });
  CHECK_THAT(errors, Catch::Contains(path + ":5:9: error: /scenario/gpus: the scenario asks for 16 GPUs but platform 'dgx-a100-1node' has 8"));
  CHECK_THAT(errors, Catch::Contains(path + ":6:22: error: /scenario/global_batch_size: global batch size 1000 is not a multiple of micro_batch_size x data-parallel replicas = 64 x 16"));
}

TEST_CASE("config::read_scenario names a missing referenced file at the key that references it", "[config]")
{
  const std::string path = write_temp("missing-ref.yaml", "scenario:\n  name: s\n  platform: nowhere.yaml\n"
                                                          "  workload: nowhere-either.yaml\n  gpus: 1\n"
                                                          "  global_batch_size: 1\n  micro_batch_size: 1\n");
  const std::string errors = errors_of([&] { config::read_scenario(path); });
  CHECK_THAT(errors, Catch::Contains(path + ":3:13: error: /scenario/platform: platform file '"));
  CHECK_THAT(errors, Catch::Contains(path + ":4:13: error: /scenario/workload: workload file '"));
}

TEST_CASE("config::read_scenario reads cuda_graph as a strict boolean, false by default", "[config]")
{
  const std::string root = GPUSCALE_SOURCE_DIR;
  const std::string head = "scenario:\n  name: s\n  platform: " + root + "/platforms/dgx-a100-1node.yaml\n  workload: " +
                           root + "/workloads/resnet50.yaml\n  gpus: 8\n  global_batch_size: 512\n"
                                  "  micro_batch_size: 64\n";
  CHECK_FALSE(config::read_scenario(write_temp("graph-default.yaml", head)).scenario.cuda_graph);
  CHECK(config::read_scenario(write_temp("graph-true.yaml", head + "  cuda_graph: true\n")).scenario.cuda_graph);
  CHECK_FALSE(config::read_scenario(write_temp("graph-false.yaml", head + "  cuda_graph: false\n")).scenario.cuda_graph);
  const std::string yes = write_temp("graph-yes.yaml", head + "  cuda_graph: yes\n");
  CHECK(errors_of([&] { config::read_scenario(yes); }) ==
        yes + ":8:15: error: /scenario/cuda_graph: expected true or false, got 'yes'");
}

TEST_CASE("config::read_scenario reads the executor and rejects unknown ones and analytical on LV08", "[config]")
{
  const std::string root = GPUSCALE_SOURCE_DIR;
  const std::string head = "scenario:\n  name: s\n  platform: " + root + "/platforms/dgx-a100-1node.yaml\n  workload: " +
                           root + "/workloads/resnet50.yaml\n  gpus: 8\n  global_batch_size: 512\n"
                                  "  micro_batch_size: 64\n";
  CHECK(config::read_scenario(write_temp("default-executor.yaml", head)).scenario.executor ==
        model::StepExecutorKind::Simgrid);
  CHECK(config::read_scenario(write_temp("analytical.yaml", head + "  executor: analytical\n")).scenario.executor ==
        model::StepExecutorKind::Analytical);
  const std::string unknown = write_temp("unknown-executor.yaml", head + "  executor: ns3\n");
  CHECK(errors_of([&] { config::read_scenario(unknown); }) ==
        unknown + ":8:13: error: /scenario/executor: unknown executor 'ns3' (known: simgrid, analytical)");
  const std::string lv08 =
      write_temp("analytical-lv08.yaml", head + "  executor: analytical\n  simgrid:\n    network_model: LV08\n");
  CHECK_THAT(errors_of([&] { config::read_scenario(lv08); }),
             Catch::Contains(lv08 + ":8:13: error: /scenario/executor: the analytical executor models the CM02 network "
                                    "only (simgrid: network_model: LV08)"));
}
