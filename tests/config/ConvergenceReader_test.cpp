#include "sim/config/ConfigError.hpp"
#include "sim/config/ConvergenceReader.hpp"
#include "sim/config/ConvergenceWriter.hpp"
#include "tests/support/TestSkip.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using gpuscale::config::ConfigError;
using gpuscale::config::ConvergenceRegeneration;
using gpuscale::config::format_convergence_yaml;
using gpuscale::config::read_convergence;
using gpuscale::config::read_convergence_text;
using gpuscale::config::regenerate_convergence;
using gpuscale::config::write_convergence_yaml;
using gpuscale::model::ConvergenceUnit;

namespace {

const std::string kSource = GPUSCALE_SOURCE_DIR;
const std::vector<std::string> kBenchmarks{"bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion"};

std::string committed_path(const std::string& benchmark)
{
  return kSource + "/workloads/convergence/" + benchmark + ".yaml";
}

std::string slurp(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A fresh, empty directory under the build tree for one test.
fs::path scratch_dir(const std::string& name)
{
  const fs::path dir = fs::path(GPUSCALE_BINARY_DIR) / "test-scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// The "# expect: " lines of a bad input, with {file} replaced by its path.
std::vector<std::string> expected_messages(const std::string& path)
{
  std::vector<std::string> expected;
  std::istringstream lines(slurp(path));
  const std::string prefix = "# expect: ";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) != 0)
      continue;
    std::string message = line.substr(prefix.size());
    if (const auto at = message.find("{file}"); at != std::string::npos)
      message.replace(at, 6, path);
    expected.push_back(message);
  }
  return expected;
}

} // namespace

TEST_CASE("config::read_convergence reads every committed table", "[config]")
{
  for (const auto& benchmark : kBenchmarks) {
    INFO(benchmark);
    const auto table = read_convergence(committed_path(benchmark));
    CHECK(table.benchmark == benchmark);
    CHECK(table.points.size() >= 4);
    CHECK(table.evaluation.every_samples > 0);
    CHECK(table.evaluation.eval_samples > 0);
    CHECK_FALSE(table.evaluation.basis.empty());
    CHECK(table.rcp_file.rfind("training_4.", 0) == 0);
  }
  const auto resnet = read_convergence(committed_path("resnet"));
  CHECK(resnet.unit == ConvergenceUnit::Epochs);
  CHECK(resnet.dataset_samples == 1281167.0);
  CHECK(resnet.evaluation.every_samples == 4.0 * 1281167); // every_epochs: 4, in samples
  CHECK(resnet.evaluation.first_at_samples == 3.0 * 1281167);
  const auto retinanet = read_convergence(committed_path("retinanet"));
  CHECK(retinanet.rcp_benchmark == "ssd");
  CHECK(retinanet.dataset_samples == 1170301.0);
  CHECK(read_convergence(committed_path("bert")).unit == ConvergenceUnit::Samples);
  CHECK_FALSE(read_convergence(committed_path("stable_diffusion")).evaluation.timed);
}

TEST_CASE("config::format_convergence_yaml writes the committed tables back byte for byte", "[config]")
{
  for (const auto& benchmark : kBenchmarks) {
    INFO(benchmark);
    const std::string text = slurp(committed_path(benchmark));
    CHECK(format_convergence_yaml(read_convergence_text(text, benchmark + ".yaml")) == text);
  }
}

TEST_CASE("config::read_convergence reports every problem of the bad inputs, located", "[config]")
{
  const fs::path dir = kSource + "/tests/data/convergence/invalid";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    INFO(path);
    const auto expected = expected_messages(path);
    REQUIRE_FALSE(expected.empty());
    std::vector<std::string> actual;
    try {
      read_convergence(path);
    } catch (const ConfigError& error) {
      for (const auto& diagnostic : error.diagnostics())
        actual.push_back(diagnostic.format());
    }
    CHECK(actual == expected);
    ++files;
  }
  CHECK(files >= 8);
}

TEST_CASE("config::write_convergence_yaml regenerates a table from an RCP file", "[config]")
{
  const fs::path dir = scratch_dir("write_convergence_yaml");
  const fs::path rcp_dir = dir / "training_0.0.0";
  fs::create_directories(rcp_dir);
  fs::copy_file(kSource + "/tests/data/convergence/rcp_small.json", rcp_dir / "rcps_toy.json");
  const fs::path output = dir / "toy.yaml";
  fs::copy_file(kSource + "/tests/data/convergence/toy_template.yaml", output);

  write_convergence_yaml(ConvergenceRegeneration{(rcp_dir / "rcps_toy.json").string(), "toy", ""}, output.string());

  const auto table = read_convergence(output.string());
  REQUIRE(table.points.size() == 2);
  CHECK(table.points[0].global_batch_size == 16);
  CHECK(table.points[0].value == 500.0); // olympic mean of 400, 500, 600
  CHECK(table.points[0].runs == 3);
  CHECK(table.points[1].global_batch_size == 64);
  CHECK(table.points[1].value == 1100.0); // of 900, 1000, 1100, 1200, 5000
  CHECK(table.rcp_file == "training_0.0.0/rcps_toy.json");
  CHECK(table.run_start_overhead_s == 60.0); // kept from the template
  CHECK(table.evaluation.basis == "made up");
  CHECK(slurp(output.string()) == format_convergence_yaml(table));
  CHECK_FALSE(fs::exists(output.string() + ".tmp"));

  // Regenerating again changes nothing.
  const std::string first = slurp(output.string());
  write_convergence_yaml(ConvergenceRegeneration{(rcp_dir / "rcps_toy.json").string(), "toy", output.string()},
                         output.string());
  CHECK(slurp(output.string()) == first);
}

TEST_CASE("config::write_convergence_yaml leaves the old file when the benchmark does not match", "[config]")
{
  const fs::path dir = scratch_dir("write_convergence_yaml_mismatch");
  const fs::path output = dir / "toy.yaml";
  fs::copy_file(kSource + "/tests/data/convergence/toy_template.yaml", output);
  const std::string before = slurp(output.string());
  const std::string rcp = kSource + "/tests/data/convergence/rcp_small.json";

  CHECK_THROWS_WITH(write_convergence_yaml(ConvergenceRegeneration{rcp, "bert", ""}, output.string()),
                    output.string() + ": error: /convergence/benchmark: expected benchmark 'bert', got 'toy'");
  CHECK_THROWS_WITH(write_convergence_yaml(ConvergenceRegeneration{rcp, "toy", kSource + "/workloads/convergence/bert.yaml"},
                                           output.string()),
                    Catch::Contains("expected benchmark 'toy', got 'bert'") &&
                        Catch::Contains("the RCP records are for benchmark 'toy', but"));
  CHECK(slurp(output.string()) == before);
  CHECK_FALSE(fs::exists(output.string() + ".tmp"));
}

TEST_CASE("config::regenerate_convergence from the MLPerf RCP files equals the committed tables", "[config][mlperf]")
{
  const char* env_dir = std::getenv("GPUSCALE_MLPERF_DIR");
  const fs::path mlperf = env_dir && *env_dir ? fs::path(env_dir) : fs::path(kSource) / ".." / "shared" / "mlperf";
  const char* require = std::getenv("GPUSCALE_REQUIRE_MLPERF");
  if (!fs::is_directory(mlperf / "rcps")) {
    if (require && std::string(require) == "1")
      FAIL("MLPerf RCP files not found at " << (mlperf / "rcps").string()
                                            << " (GPUSCALE_REQUIRE_MLPERF=1; set GPUSCALE_MLPERF_DIR)");
    gpuscale::test::skip_test("MLPerf RCP files not found at " + (mlperf / "rcps").string() +
                    "; set GPUSCALE_MLPERF_DIR to check the committed tables");
    return;
  }
  for (const auto& benchmark : kBenchmarks) {
    INFO(benchmark);
    const std::string path = committed_path(benchmark);
    const std::string rcp = (mlperf / "rcps" / read_convergence(path).rcp_file).string();
    const auto regenerated = regenerate_convergence(ConvergenceRegeneration{rcp, benchmark, path});
    CHECK(format_convergence_yaml(regenerated) == slurp(path));
  }
}
