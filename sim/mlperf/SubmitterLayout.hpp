#pragma once
/// How MLPerf submitters lay a benchmark out on a system, as gpuscale reproduces it for systems it
/// has to predict (docs/MLPERF_DATA.md, "Layout rule"):
///
///   llama2_70b_lora  Megatron tensor parallelism with sequence parallelism and its collectives
///                    overlapped with the GEMMs (tp_comm_overlap), FP8 GEMMs where the accelerator
///                    has an FP8 peak (Transformer Engine), micro-batch 1, and the fewest decoder
///                    layers recomputed that fit (none where the activations fit; NeMo's block
///                    checkpointing of the first N layers); every layer under ZeRO-3 (the reference's
///                    gradient checkpointing, which the DeepSpeed submissions run).
///                    Model parallelism per replica (tp x cp): what the logs fix where they give the
///                    accumulation steps (global batch / steps replicas); else the least power of 2
///                    from 2 whose replicas divide the global batch and fit in memory (8x H200 and
///                    B200 submissions run 2; 8x H100 ones 4 or 2; 64-1024 H100 ones 8). Split tp 4,
///                    8, 2, 1 first (within a node), cp (a power of 2, at most 8) the rest; a
///                    logged replica of one GPU runs ZeRO-3 (the DeepSpeed submissions).
///   the others       data parallelism (DDP, ZeRO stage 0), the largest micro-batch that divides the
///                    per-GPU batch and fits in memory without activation checkpointing; with
///                    checkpointing only if micro-batch 1 does not fit. ResNet and RetinaNet decode
///                    images on the GPU (DALI), as every submission of the calibration data does.

#include "sim/model/Platform.hpp"
#include "sim/model/Scenario.hpp"
#include "sim/model/WorkloadTrace.hpp"

#include <string>

namespace gpuscale::mlperf {

/// Sets tp, cp, sequence_parallel, activation_checkpointing, precision, micro_batch_size,
/// zero_stage and input_pipeline of `scenario` (whose gpus and global_batch_size are set).
/// `accumulation_steps` > 0 is the submission's logged gradient_accumulation_steps: it fixes the
/// micro-batch (data-parallel benchmarks) or the data-parallel degree (Llama 2, micro-batch 1) where
/// that layout divides and fits; 0 (not logged, or a system to predict) leaves the rule above.
/// Throws std::invalid_argument naming the reason when no layout divides the batch or fits.
void choose_submitter_layout(model::Scenario& scenario, const model::WorkloadTrace& workload,
                             const model::GpuType& gpu, int gpus_per_node, int accumulation_steps = 0);

} // namespace gpuscale::mlperf
