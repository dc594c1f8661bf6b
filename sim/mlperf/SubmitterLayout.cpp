#include "sim/mlperf/SubmitterLayout.hpp"

#include "sim/engine/MemoryModel.hpp"
#include "sim/model/Recomputation.hpp"

#include <stdexcept>

namespace gpuscale::mlperf {
namespace {

bool fits(const model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu)
{
  const model::Precision precision = s.precision.value_or(workload.precision);
  return engine::estimate_memory(workload, s, gpu, precision, s.data_parallel()).fits();
}

/// Recomputes as few checkpoint blocks as fit: none if the activations fit, else the smallest N of
/// NeMo's `activations_checkpoint_method: block` (the first N decoder layers recomputed, the rest
/// stored). Recomputing a decoder layer runs its forward again, a third more GEMM work per layer,
/// which a submitter who can store the activations does not pay. False when even every block
/// recomputed does not fit.
bool fits_with_fewest_recomputed_blocks(model::Scenario& s, const model::WorkloadTrace& workload,
                                        const model::GpuType& gpu)
{
  return model::recompute_fewest_blocks(s, workload,
                                        [&](const model::Scenario& c) { return fits(c, workload, gpu); });
}

/// Llama 2 with `model_parallel` GPUs per replica (micro-batch 1, so the replicas must divide the
/// global batch), split as NeMo splits it: tp = 4 first, then 8, 2, 1 (within a node), cp the rest
/// (at most 8). A replica of one GPU holds the whole model where it fits (NeMo's v5.0 configurations
/// on B200 and GB200: tp 1, 8 replicas of the FP8 frozen weights on 8 GPUs), else, with `zero3`,
/// only sharded: ZeRO-3, as the DeepSpeed-based submissions run it. False (and `s`'s parallelism
/// unspecified) when no split divides or fits.
bool llama_model_parallel_layout(model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu,
                                 int per_node, int model_parallel, bool zero3 = true)
{
  if (model_parallel < 1 || s.gpus % model_parallel != 0 || s.global_batch_size % (s.gpus / model_parallel) != 0)
    return false;
  for (int tp : {4, 8, 2, 1}) {
    const int cp = model_parallel / tp;
    // cp a power of 2: TransformerEngine's load-balanced ring attention cuts the 8,192-token sequence
    // into 2 x cp chunks.
    if (tp > per_node || per_node % tp != 0 || model_parallel % tp != 0 || cp > 8 || (cp & (cp - 1)) != 0)
      continue;
    s.tensor_parallel = tp;
    s.context_parallel = cp;
    s.zero_stage = 0;
    if (fits_with_fewest_recomputed_blocks(s, workload, gpu))
      return true;
    s.zero_stage = model_parallel == 1 && zero3 ? 3 : 0;
    if (s.zero_stage == 3) { // DeepSpeed on the reference's Hugging Face code: every decoder layer checkpointed
      s.activation_checkpointing = true;
      s.activation_checkpointing_blocks.reset();
      if (fits(s, workload, gpu))
        return true;
    }
  }
  s.zero_stage = 0;
  return false;
}

void llama_layout(model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu, int per_node,
                  int accumulation_steps)
{
  s.sequence_parallel = true;
  // NeMo's MLPerf Llama 2 LoRA configurations run TransformerEngine's userbuffers overlap of the TP
  // collectives with the GEMMs (tp_comm_overlap), with FP8 where the accelerator has it.
  s.tp_comm_overlap = true;
  s.micro_batch_size = 1;
  if (gpu.peak_flop_per_s.contains(model::Precision::Fp8))
    s.precision = model::Precision::Fp8;
  // The logs fix the data-parallel degree: global batch = accumulation steps x replicas.
  if (accumulation_steps > 0 && s.global_batch_size % accumulation_steps == 0) {
    const int data_parallel = s.global_batch_size / accumulation_steps;
    if (s.gpus % data_parallel == 0 &&
        llama_model_parallel_layout(s, workload, gpu, per_node, s.gpus / data_parallel))
      return;
  }
  // Without logs: the least model parallelism that divides the batch and fits, one GPU per replica only
  // where it holds the whole model (NeMo on B200; DeepSpeed's ZeRO-3 of one GPU per replica is slower
  // than two GPUs with the weights split).
  for (int model_parallel = 1; model_parallel <= std::min(s.gpus, 64); model_parallel *= 2)
    if (llama_model_parallel_layout(s, workload, gpu, per_node, model_parallel, false))
      return;
  throw std::invalid_argument("no Llama 2 layout (model parallelism 1-64 as tp <= 8 with SP and cp <= 8, "
                              "micro-batch 1) divides global batch " +
                              std::to_string(s.global_batch_size) + " over " + std::to_string(s.gpus) +
                              " GPUs and fits in " + gpu.name + " memory");
}

/// The largest micro-batch dividing the per-GPU batch that fits, without activation checkpointing if
/// any does; `only_micro` > 0 admits that micro-batch alone. False when none fits.
bool largest_fitting_micro_batch(model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu,
                                 int per_gpu, int only_micro)
{
  for (bool checkpointing : {false, true}) {
    s.activation_checkpointing = checkpointing;
    for (int micro = per_gpu; micro >= 1; --micro) {
      if (per_gpu % micro != 0 || (only_micro > 0 && micro != only_micro))
        continue;
      s.micro_batch_size = micro;
      if (fits(s, workload, gpu))
        return true;
    }
  }
  return false;
}

void data_parallel_layout(model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu,
                          int accumulation_steps)
{
  if (s.global_batch_size % s.gpus != 0)
    throw std::invalid_argument("global batch " + std::to_string(s.global_batch_size) + " does not divide over " +
                                std::to_string(s.gpus) + " GPUs");
  const int per_gpu = s.global_batch_size / s.gpus;
  // Logged accumulation steps fix the micro-batch (per-GPU batch / steps); the rule's search where the
  // logs do not say, or say something that does not divide or fit.
  if (accumulation_steps > 0 && per_gpu % accumulation_steps == 0 &&
      largest_fitting_micro_batch(s, workload, gpu, per_gpu, per_gpu / accumulation_steps))
    return;
  if (!largest_fitting_micro_batch(s, workload, gpu, per_gpu, 0))
    throw std::invalid_argument("even micro-batch 1 with activation checkpointing does not fit in " + gpu.name +
                                " memory");
}

} // namespace

void choose_submitter_layout(model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu,
                             int gpus_per_node, int accumulation_steps)
{
  s.zero_stage = 0;
  s.tensor_parallel = 1;
  s.context_parallel = 1;
  s.sequence_parallel = false;
  s.activation_checkpointing = false;
  s.activation_checkpointing_blocks.reset();
  s.precision.reset();
  s.collective = model::CollectiveAlgorithm::Auto;
  using model::Benchmark;
  s.input_pipeline =
      workload.benchmark == Benchmark::Resnet || workload.benchmark == Benchmark::Retinanet ? "dali-gpu-decode" : "";
  if (workload.benchmark == Benchmark::Llama2_70bLora)
    llama_layout(s, workload, gpu, gpus_per_node, accumulation_steps);
  else
    data_parallel_layout(s, workload, gpu, accumulation_steps);
}

} // namespace gpuscale::mlperf
