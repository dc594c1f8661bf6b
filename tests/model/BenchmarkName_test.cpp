#include "sim/model/BenchmarkName.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

TEST_CASE("model::benchmark_name accepts MLPerf and workload-file names alike and refuses others", "[model]")
{
  CHECK(model::benchmark_name("bert") == "bert");
  CHECK(model::benchmark_name("bert-large") == "bert");
  CHECK(model::benchmark_name("resnet50") == "resnet");
  CHECK(model::benchmark_name("llama2-70b-lora") == "llama2_70b_lora");
  CHECK(model::benchmark_name("stable-diffusion") == "stable_diffusion");
  CHECK(model::benchmark_name("ssd") == "retinanet");
  CHECK(model::benchmark_name("gpt3") == std::nullopt);
  CHECK(model::benchmark_name("BERT") == std::nullopt);
  for (const char* benchmark : {"bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion"})
    CHECK(model::benchmark_name(*model::workload_name(benchmark)) == benchmark);
  CHECK(model::known_benchmark_names() == "bert (bert-large), llama2_70b_lora (llama2-70b-lora), resnet (resnet50), "
                                          "retinanet, stable_diffusion (stable-diffusion)");
}
