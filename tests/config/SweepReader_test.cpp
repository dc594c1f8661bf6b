// Sweep files: expansion order and point numbers, skip_invalid, shards, and every kind of bad input
// (tests/data/sweeps/invalid/*.yaml, each starting with "# expect: <the full message>").

#include "sim/config/ConfigError.hpp"
#include "sim/config/SweepReader.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

using namespace gpuscale;

TEST_CASE("config::read_sweep numbers points by their place in the product, GPU count fastest", "[config][sweep]")
{
  const auto spec = config::read_sweep("tests/data/sweeps/expansion.yaml");
  CHECK(spec.name == "expansion-test");
  CHECK(spec.points_total == 12);
  CHECK(spec.axes == std::vector<std::string>{"platform", "global_batch_size", "gpus"});
  // index = (platform * 2 + global_batch) * 3 + gpus
  for (const auto& point : spec.points) {
    const auto& s = point.scenario;
    const int platform = point.platform().name == "dgx-a100-1node" ? 0 : 1;
    const int batch = s.global_batch_size == 1024 ? 0 : 1;
    const int gpus = s.gpus == 1 ? 0 : s.gpus == 2 ? 1 : 2;
    CHECK(point.index == (platform * 2 + batch) * 3 + gpus);
    CHECK(s.micro_batch_size == 32);
    CHECK(s.collective == model::CollectiveAlgorithm::Ring);
    CHECK(point.workload().name == "resnet50");
    CHECK(point.scenario_text.find("gpus: " + std::to_string(s.gpus)) != std::string::npos);
  }
  CHECK(std::is_sorted(spec.points.begin(), spec.points.end(),
                       [](const auto& a, const auto& b) { return a.index < b.index; }));
}

TEST_CASE("config::read_sweep with skip_invalid records each skipped combination and why", "[config][sweep]")
{
  const auto spec = config::read_sweep("tests/data/sweeps/expansion.yaml");
  // Skipped: a100-1node 16 GPUs (x2 batches), 96 on 2 GPUs (both platforms), 96 on 16 GPUs (h100: batch).
  std::set<std::int64_t> skipped;
  std::size_t gpu_count = 0, batch = 0;
  for (const auto& s : spec.skipped) {
    skipped.insert(s.index);
    (s.reason == model::SkipReason::GpuCount ? gpu_count : batch) += 1;
  }
  CHECK(skipped == std::set<std::int64_t>{2, 4, 5, 10, 11});
  CHECK(gpu_count == 2);
  CHECK(batch == 3);
  CHECK(spec.points.size() + spec.skipped.size() == 12);
  const auto it = std::find_if(spec.skipped.begin(), spec.skipped.end(), [](const auto& s) { return s.index == 2; });
  REQUIRE(it != spec.skipped.end());
  CHECK(it->detail == "the scenario asks for 16 GPUs but platform 'dgx-a100-1node' has 8");
}

TEST_CASE("config::read_sweep identifies a sweep by the hash of its text", "[config][sweep]")
{
  const auto spec = config::read_sweep("tests/data/sweeps/expansion.yaml");
  CHECK(spec.sweep_id == model::sweep_id_of(spec.text));
  CHECK(spec.sweep_id.size() == 16);
  CHECK(model::sweep_id_of("") == "cbf29ce484222325"); // FNV-1a 64 offset basis
  CHECK(model::sweep_id_of("a") == "af63dc4c8601ec8c"); // FNV-1a 64 test vector
}

TEST_CASE("model::shard_of_position splits runnable points into disjoint shards that cover them all",
          "[config][sweep]")
{
  const auto spec = config::read_sweep("tests/data/sweeps/expansion.yaml");
  for (int shards : {1, 2, 3, 7}) {
    std::vector<int> count(static_cast<std::size_t>(shards), 0);
    for (std::size_t k = 0; k < spec.points.size(); ++k)
      ++count[static_cast<std::size_t>(model::shard_of_position(k, shards))];
    const auto [low, high] = std::minmax_element(count.begin(), count.end());
    CHECK(*high - *low <= 1);
    int total = 0;
    for (int c : count)
      total += c;
    CHECK(total == static_cast<int>(spec.points.size()));
  }
}

TEST_CASE("config::read_sweep reports bad sweep files with their location (tests/data/sweeps/invalid)",
          "[config][sweep]")
{
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator("tests/data/sweeps/invalid"))
    files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 10);
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string first_line;
    std::getline(in, first_line);
    REQUIRE(first_line.rfind("# expect: ", 0) == 0);
    const std::string expected = first_line.substr(10);
    INFO(file.string());
    try {
      config::read_sweep(file.string());
      FAIL("no error for " << file.string());
    } catch (const config::ConfigError& e) {
      CHECK(std::string(e.what()) == expected);
    }
  }
}

TEST_CASE("config::read_sweep sweeps the boolean cuda_graph like any scenario key", "[config][sweep]")
{
  const std::string root = GPUSCALE_SOURCE_DIR;
  const auto path = std::filesystem::temp_directory_path() /
                    ("gpuscale-sweep-cuda-graph-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "scenario:\n  name: graph-sweep\n  platform: " << root
                      << "/platforms/dgx-a100-1node.yaml\n  workload: " << root
                      << "/workloads/resnet50.yaml\n  gpus: 8\n  global_batch_size: 512\n  micro_batch_size: 64\n"
                         "sweep:\n  cuda_graph: [false, true]\n";
  const auto spec = config::read_sweep(path.string());
  std::filesystem::remove(path);
  CHECK(spec.points_total == 2);
  CHECK(spec.axes == std::vector<std::string>{"cuda_graph"});
  REQUIRE(spec.points.size() == 2);
  CHECK_FALSE(spec.points[0].scenario.cuda_graph);
  CHECK(spec.points[1].scenario.cuda_graph);
}
