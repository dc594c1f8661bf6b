#pragma once
/// What one GPU does in one optimizer step under ZeRO stage 0 (PyTorch DDP): forward and backward
/// per micro-batch, with the last micro-batch's backward cut where gradient buckets fill up, so the
/// all-reduce of each bucket overlaps the rest of backward.

#include "sim/model/Scenario.hpp"

#include <vector>

namespace gpuscale::engine {

/// Compute `flop`, then hand a bucket of `bucket_bytes` gradients to the communication stream (0: none).
struct BackwardSegment {
  double flop = 0;
  double bucket_bytes = 0;
};

struct StepSchedule {
  int micro_batches = 1;
  double forward_flop = 0;  ///< per micro-batch
  double backward_flop = 0; ///< per micro-batch, recomputation included
  std::vector<BackwardSegment> last_backward; ///< the last micro-batch's backward, bucket by bucket
  double gradient_bytes = 0;   ///< all-reduced per step
  double optimizer_s = 0;      ///< memory-bound optimizer update
};

/// Bytes the optimizer step reads and writes per trainable parameter (mixed precision: fp16 gradient
/// in, fp32 master and states read and written, fp16 parameter out).
double optimizer_traffic_bytes_per_param(model::Optimizer optimizer, model::Precision precision);

/// DDP's bucketing: gradients become ready in reverse layer order and are grouped into buckets of
/// at least `bucket_bytes` (PyTorch DDP bucket_cap_mb); the last bucket takes what is left.
StepSchedule build_ddp_schedule(const model::WorkloadTrace& workload, const model::Scenario& scenario,
                                const model::GpuType& gpu, model::Precision precision);

} // namespace gpuscale::engine
