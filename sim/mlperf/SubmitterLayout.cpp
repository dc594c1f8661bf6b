#include "sim/mlperf/SubmitterLayout.hpp"

#include "sim/engine/MemoryModel.hpp"

#include <stdexcept>

namespace gpuscale::mlperf {
namespace {

bool fits(const model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu)
{
  const model::Precision precision = s.precision.value_or(workload.precision);
  return engine::estimate_memory(workload, s, gpu, precision, s.data_parallel()).fits();
}

void llama_layout(model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu, int per_node)
{
  s.sequence_parallel = true;
  // NeMo's MLPerf Llama 2 LoRA configurations run TransformerEngine's userbuffers overlap of the TP
  // collectives with the GEMMs (tp_comm_overlap), with FP8 where the accelerator has it.
  s.tp_comm_overlap = true;
  s.activation_checkpointing = true;
  s.micro_batch_size = 1;
  if (gpu.peak_flop_per_s.contains(model::Precision::Fp8))
    s.precision = model::Precision::Fp8;
  for (int tp : {4, 8}) {
    if (tp > s.gpus)
      break;
    s.tensor_parallel = std::min(tp, per_node);
    if (per_node % s.tensor_parallel != 0 || s.gpus % s.tensor_parallel != 0)
      continue;
    for (s.context_parallel = 1; s.context_parallel <= 8; s.context_parallel *= 2) {
      const int model_parallel = s.tensor_parallel * s.context_parallel;
      if (s.gpus % model_parallel != 0)
        break;
      if (s.global_batch_size % s.data_parallel() == 0)
        break;
    }
    if (s.context_parallel > 8 || s.gpus % (s.tensor_parallel * s.context_parallel) != 0 ||
        s.global_batch_size % s.data_parallel() != 0)
      continue;
    if (fits(s, workload, gpu))
      return;
  }
  throw std::invalid_argument("no Llama 2 layout (tp 4 or 8 with SP, cp <= 8, micro-batch 1) divides global batch " +
                              std::to_string(s.global_batch_size) + " over " + std::to_string(s.gpus) +
                              " GPUs and fits in " + gpu.name + " memory");
}

void data_parallel_layout(model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu)
{
  if (s.global_batch_size % s.gpus != 0)
    throw std::invalid_argument("global batch " + std::to_string(s.global_batch_size) + " does not divide over " +
                                std::to_string(s.gpus) + " GPUs");
  const int per_gpu = s.global_batch_size / s.gpus;
  for (bool checkpointing : {false, true}) {
    s.activation_checkpointing = checkpointing;
    for (int micro = per_gpu; micro >= 1; --micro) {
      if (per_gpu % micro != 0)
        continue;
      s.micro_batch_size = micro;
      if (fits(s, workload, gpu))
        return;
    }
  }
  throw std::invalid_argument("even micro-batch 1 with activation checkpointing does not fit in " + gpu.name +
                              " memory");
}

} // namespace

void choose_submitter_layout(model::Scenario& s, const model::WorkloadTrace& workload, const model::GpuType& gpu,
                             int gpus_per_node)
{
  s.zero_stage = 0;
  s.tensor_parallel = 1;
  s.context_parallel = 1;
  s.sequence_parallel = false;
  s.activation_checkpointing = false;
  s.precision.reset();
  s.collective = model::CollectiveAlgorithm::Auto;
  using model::Benchmark;
  s.input_pipeline =
      workload.benchmark == Benchmark::Resnet || workload.benchmark == Benchmark::Retinanet ? "dali-gpu-decode" : "";
  if (workload.benchmark == Benchmark::Llama2_70bLora)
    llama_layout(s, workload, gpu, gpus_per_node);
  else
    data_parallel_layout(s, workload, gpu);
}

} // namespace gpuscale::mlperf
