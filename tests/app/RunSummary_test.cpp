// The summary's setup line, golden strings for each way a global batch is made up.

#include "sim/app/RunSummary.hpp"

#include <catch2/catch.hpp>

using namespace gpuscale;

namespace {

results::RunRecord record_of(const model::Scenario& s)
{
  results::RunRecord r;
  r.zero_stage = s.zero_stage;
  r.precision = "bf16";
  r.collective = "auto";
  r.collective_used = "ring";
  r.activation_checkpointing = s.activation_checkpointing ? 1 : 0;
  r.checkpoint_blocks = 80; // a Llama 2 70B trace's decoder layers
  r.recomputed_blocks = s.activation_checkpointing ? s.activation_checkpointing_blocks.value_or(80) : 0;
  r.overlap_comm = s.overlaps_communication() ? 1 : 0;
  return r;
}

} // namespace

TEST_CASE("app::format_setup_line on a data-parallel run counts GPUs", "[app][summary]")
{
  model::Scenario s;
  s.gpus = 8;
  s.global_batch_size = 256;
  s.micro_batch_size = 8;
  s.zero_stage = 1;
  CHECK(app::format_setup_line(s, record_of(s)) ==
        "setup      ZeRO-1, bf16, global batch 256 = micro-batch 8 x 8 GPUs x 4 accumulation step(s), collective ring "
        "(auto), overlap_comm off\n");
}

TEST_CASE("app::format_setup_line with tp and cp counts replicas and says how the GPUs split", "[app][summary]")
{
  model::Scenario s;
  s.gpus = 16;
  s.tensor_parallel = 4;
  s.context_parallel = 2;
  s.sequence_parallel = true;
  s.activation_checkpointing = true;
  s.global_batch_size = 8;
  s.micro_batch_size = 1;
  // 16 GPUs / (tp 4 x cp 2) = 2 replicas; 8 = 1 x 2 x 4.
  CHECK(app::format_setup_line(s, record_of(s)) ==
        "setup      ZeRO-0, bf16, global batch 8 = micro-batch 1 x 2 replica(s) x 4 accumulation step(s); 16 GPUs = 2 "
        "replica(s) x tp 4 x cp 2, sequence parallel, activation checkpointing, collective ring (auto), overlap_comm "
        "on\n");
  s.activation_checkpointing_blocks = 38; // NeMo's block method: the first 38 layers recomputed
  CHECK(app::format_setup_line(s, record_of(s)) ==
        "setup      ZeRO-0, bf16, global batch 8 = micro-batch 1 x 2 replica(s) x 4 accumulation step(s); 16 GPUs = 2 "
        "replica(s) x tp 4 x cp 2, sequence parallel, activation checkpointing (38 of 80 blocks), collective ring "
        "(auto), overlap_comm on\n");
}

TEST_CASE("app::format_setup_line on an uneven allocation adds up each group of GPUs", "[app][summary]")
{
  model::Scenario s;
  s.gpus = 16;
  s.global_batch_size = 1024;
  s.micro_batch_size = 5;
  for (int rank = 0; rank < 8; ++rank)
    s.batch_per_rank.push_back({5, 16});
  for (int rank = 0; rank < 8; ++rank)
    s.batch_per_rank.push_back({3, 16});
  // 8 x 5 x 16 + 8 x 3 x 16 = 640 + 384 = 1024.
  CHECK(app::format_setup_line(s, record_of(s)) ==
        "setup      ZeRO-0, bf16, global batch 1024 = 8 GPU(s) x 5 x 16 + 8 GPU(s) x 3 x 16 (GPUs x micro-batch x "
        "accumulation steps, uneven), collective ring (auto), overlap_comm on\n");
}
