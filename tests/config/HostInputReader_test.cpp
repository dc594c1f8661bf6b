#include "sim/config/ConfigError.hpp"
#include "sim/config/HostInputReader.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using gpuscale::config::ConfigError;
using gpuscale::config::read_host_input;

TEST_CASE("config::read_host_input reads the committed costs of all five benchmarks", "[config]")
{
  const auto costs = read_host_input(std::string(GPUSCALE_SOURCE_DIR) + "/workloads/host_input/host_input.yaml");
  std::set<std::string> benchmarks;
  for (const auto& cost : costs) {
    INFO(cost.benchmark << " " << cost.pipeline);
    benchmarks.insert(cost.benchmark);
    CHECK(cost.core_time_per_sample_s > 0);
    CHECK(cost.core_time_per_sample_s < 0.1);
    CHECK(cost.reserved_cores_per_gpu == 1.0);
    CHECK_FALSE(cost.basis.empty());
  }
  CHECK(benchmarks == std::set<std::string>{"bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion"});
  CHECK(costs.front().benchmark == "resnet");
  CHECK(costs.front().core_time_per_sample_s == Approx(4e-3).epsilon(1e-12)); // "4 ms"
}

TEST_CASE("config::read_host_input reports every problem of the bad inputs, located", "[config]")
{
  int files = 0;
  for (const auto& entry : fs::directory_iterator(std::string(GPUSCALE_SOURCE_DIR) + "/tests/data/host_input/invalid")) {
    const std::string path = entry.path().string();
    INFO(path);
    std::ifstream in(path);
    std::vector<std::string> expected;
    for (std::string line; std::getline(in, line);)
      if (line.rfind("# expect: ", 0) == 0) {
        std::string message = line.substr(10);
        message.replace(message.find("{file}"), 6, path);
        expected.push_back(message);
      }
    REQUIRE_FALSE(expected.empty());
    std::vector<std::string> actual;
    try {
      read_host_input(path);
    } catch (const ConfigError& error) {
      for (const auto& diagnostic : error.diagnostics())
        actual.push_back(diagnostic.format());
    }
    CHECK(actual == expected);
    ++files;
  }
  CHECK(files == 2);
}
