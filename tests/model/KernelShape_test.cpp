// Kernel shapes (workloads/SCHEMA.md, "Kernels"): each op's FLOPs in closed form, and the committed
// traces' kernels adding up to their layers' FLOPs, forward and backward.

#include "sim/config/WorkloadReader.hpp"
#include "sim/model/KernelShape.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <variant>

using namespace gpuscale;

TEST_CASE("model::Kernel FLOPs of each op follow their closed forms", "[model][kernels]")
{
  // BERT-large's QKV projection on 512 tokens: 2 x 512 x 3072 x 1024.
  const model::Kernel qkv{model::GemmShape{512, 3072, 1024, 1}, 2};
  CHECK(qkv.forward_flop() == 2.0 * 512 * 3072 * 1024);
  CHECK(qkv.backward_flop() == 2.0 * qkv.forward_flop());
  // ResNet-50's stem: 7x7/2 conv, 3 -> 64 channels, 224 -> 112 with padding 3 (118 M MACs).
  const model::ConvShape stem{224, 224, 3, 64, 7, 7, 2, 3, 1};
  CHECK(stem.out_h() == 112);
  CHECK(model::Kernel{stem, 2}.forward_flop() == 2.0 * 112 * 112 * 64 * 3 * 7 * 7);
  // A depthwise 3x3 conv: one input channel per output channel.
  const model::ConvShape depthwise{56, 56, 96, 96, 3, 3, 2, 1, 96};
  CHECK(depthwise.out_h() == 28);
  CHECK(model::Kernel{depthwise, 1}.forward_flop() == 2.0 * 28 * 28 * 96 * 1 * 9);
  // Causal attention computes the unmasked half of the scores, diagonal included.
  const model::AttentionShape causal{64, 8, 8192, 8192, 128, true};
  CHECK(causal.pairs() == 8192.0 * 8193.0 / 2.0);
  CHECK(model::Kernel{causal, 2}.forward_flop() == 64 * causal.pairs() * (4 * 128 + 5));
  const model::AttentionShape cross{10, 10, 4096, 77, 64, false};
  CHECK(cross.pairs() == 4096.0 * 77);
  const model::Kernel add{model::ElementwiseShape{1000, 1, 6, false}, 1};
  CHECK(add.forward_flop() == 1000);
  CHECK(add.op_name() == "elementwise");
}

TEST_CASE("the committed traces give every layer with FLOPs its kernels, adding up to its FLOPs",
          "[model][kernels]")
{
  int workloads = 0;
  for (const std::string folder : {"", "megatron-gpt"})
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(GPUSCALE_SOURCE_DIR) / "workloads" / folder)) {
      if (entry.path().extension() != ".yaml")
        continue;
      ++workloads;
      const auto trace = config::read_workload(entry.path().string());
      int attention = 0;
      for (const auto& layer : trace.layers) {
        INFO(entry.path().filename().string() << ": " << layer.name);
        CHECK((layer.forward_flop_per_sample == 0 || !layer.kernels.empty()));
        double forward = 0, backward = 0;
        for (const auto& kernel : layer.kernels) {
          forward += kernel.forward_flop();
          backward += kernel.backward_flop();
          attention += std::holds_alternative<model::AttentionShape>(kernel.shape) ? 1 : 0;
        }
        // The reader already refuses a mismatch; this states the identity the traces are built on.
        CHECK(forward == Approx(layer.forward_flop_per_sample).epsilon(1e-12));
        CHECK(backward == Approx(layer.backward_flop_per_sample).epsilon(1e-12));
      }
      // The transformers (the pretraining traces run at Llama 2's efficiencies) carry their attention
      // as fused kernels; the CNNs have none.
      const auto kind = trace.calibrated_efficiencies();
      const bool transformer = kind == model::Benchmark::Bert || kind == model::Benchmark::Llama2_70bLora ||
                               kind == model::Benchmark::StableDiffusion;
      CHECK((attention > 0) == transformer);
    }
  CHECK(workloads == 18);
}
