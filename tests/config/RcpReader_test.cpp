#include "sim/config/ConfigError.hpp"
#include "sim/config/RcpReader.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using gpuscale::config::ConfigError;
using gpuscale::config::read_rcp_file;

namespace {
const std::string kData = std::string(GPUSCALE_SOURCE_DIR) + "/tests/data/convergence/";
}

TEST_CASE("config::read_rcp_file averages each batch size with the olympic mean, sorted by batch", "[config]")
{
  const auto rcp = read_rcp_file(kData + "rcp_small.json");
  CHECK(rcp.benchmark == "toy");
  REQUIRE(rcp.points.size() == 2);
  CHECK(rcp.points[0] == gpuscale::model::ConvergencePoint{16, 500.0, 3});
  CHECK(rcp.points[1] == gpuscale::model::ConvergencePoint{64, 1100.0, 5});
}

TEST_CASE("config::read_rcp_file reads the Llama 2 LoRA spelling 'samples to converge'", "[config]")
{
  const auto rcp = read_rcp_file(kData + "rcp_llama_style.json");
  REQUIRE(rcp.points.size() == 1);
  CHECK(rcp.points[0] == gpuscale::model::ConvergencePoint{8, 25.0, 4}); // mean of 20 and 30
}

TEST_CASE("config::read_rcp_file reports every problem, located", "[config]")
{
  const std::string path = kData + "rcp_invalid.json";
  std::vector<std::string> messages;
  try {
    read_rcp_file(path);
  } catch (const ConfigError& error) {
    for (const auto& diagnostic : error.diagnostics())
      messages.push_back(diagnostic.format());
  }
  const std::vector<std::string> expected{
      path + ":2:70: error: /toy_ref_16/Epochs to converge: expected at least 3 runs (the olympic mean drops the "
             "fastest and the slowest), got 2",
      path + ":3:46: error: /toy_ref_32/BS: expected an integer, got 'big'",
      path + ":3:79: error: /toy_ref_32/Epochs to converge/1: expected a positive number of samples or epochs, got '-2'",
      path + ":3:31: error: /toy_ref_32/Benchmark: expected 'toy' like the file's first record, got 'other'",
      path + ":4:105: error: /toy_ref_16b/samples to converge: expected one of 'Epochs to converge' and 'samples to "
             "converge', got both",
      path + ":4:45: error: /toy_ref_16b/BS: batch size 16 already has record 'toy_ref_16'",
  };
  CHECK(messages == expected);
}

TEST_CASE("config::read_rcp_file reports a missing file", "[config]")
{
  CHECK_THROWS_WITH(read_rcp_file(kData + "no_such_file.json"), Catch::Contains("no_such_file.json: error: cannot read file"));
}
