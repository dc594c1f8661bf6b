#include "sim/model/Benchmark.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace gpuscale;
using model::Benchmark;

TEST_CASE("model::parse_benchmark accepts MLPerf and workload-file names alike and refuses others", "[model]")
{
  CHECK(model::parse_benchmark("bert") == Benchmark::Bert);
  CHECK(model::parse_benchmark("bert-large") == Benchmark::Bert);
  CHECK(model::parse_benchmark("resnet50") == Benchmark::Resnet);
  CHECK(model::parse_benchmark("llama2-70b-lora") == Benchmark::Llama2_70bLora);
  CHECK(model::parse_benchmark("stable-diffusion") == Benchmark::StableDiffusion);
  CHECK(model::parse_benchmark("ssd") == Benchmark::Retinanet);
  CHECK(model::parse_benchmark("gpt3") == std::nullopt);
  CHECK(model::parse_benchmark("BERT") == std::nullopt);
  for (Benchmark benchmark : model::all_benchmarks()) {
    CHECK(model::parse_benchmark(model::workload_name(benchmark)) == benchmark);
    CHECK(model::parse_benchmark(model::to_string(benchmark)) == benchmark);
    CHECK(model::benchmark_of_name(model::to_string(benchmark)) == benchmark);
  }
  CHECK(model::benchmark_of_name("bert-large") == std::nullopt);
  CHECK(model::benchmark_of_name("ssd") == std::nullopt);
  CHECK(model::known_benchmark_names() == "bert (bert-large), llama2_70b_lora (llama2-70b-lora), resnet (resnet50), "
                                          "retinanet, stable_diffusion (stable-diffusion)");
}

TEST_CASE("model::Benchmark orders as its names do, so maps keyed by it list as before", "[model]")
{
  std::map<std::string, int> by_name;
  for (Benchmark benchmark : model::all_benchmarks())
    by_name[model::to_string(benchmark)] = static_cast<int>(benchmark);
  int expected = 0;
  for (const auto& [name, index] : by_name)
    CHECK(index == expected++);
  CHECK(model::all_benchmarks().size() == 5);
}
