#pragma once
/// Which layers run their forward again in the backward pass under activation checkpointing.
///
/// A checkpoint block is a maximal run of consecutive `recomputed: true` layers of the trace
/// (workloads/SCHEMA.md, Checkpointing): a transformer layer, a ResNet bottleneck, an SD ResBlock.
/// With `activation_checkpointing` every block drops its activations and is recomputed, or, with
/// `activation_checkpointing_blocks: N`, only the first N blocks are, and the others keep theirs:
/// Megatron-LM / NeMo's `activations_checkpoint_method: block` with `activations_checkpoint_num_layers`,
/// which a submitter sets to the fewest recomputed layers that fit in memory (each recomputed
/// transformer layer costs its forward again: a third more GEMM work where all of them are).

#include "sim/model/Scenario.hpp"
#include "sim/model/WorkloadTrace.hpp"

#include <functional>
#include <vector>

namespace gpuscale::model {

/// The number of checkpoint blocks of `workload` (maximal runs of `recomputed: true` layers).
int checkpoint_block_count(const WorkloadTrace& workload);

/// The blocks `scenario` recomputes: 0 without activation checkpointing, else all of them or the
/// scenario's `activation_checkpointing_blocks`, whichever is fewer.
int recomputed_block_count(const WorkloadTrace& workload, const Scenario& scenario);

/// Sets `s` to recompute as few checkpoint blocks as `fits` accepts, as a submitter tunes NeMo's block
/// checkpointing: no checkpointing if it fits so, else the smallest N (bisection: memory does not grow
/// with the blocks recomputed), every block written as plain checkpointing. False (and `s` at every
/// block) when even that does not fit.
bool recompute_fewest_blocks(Scenario& s, const WorkloadTrace& workload,
                             const std::function<bool(const Scenario&)>& fits);

/// Per layer of `workload`: true when `scenario` drops the layer's activations and backward runs its
/// forward (kernels and collectives) again before back-propagating through its block.
std::vector<bool> recomputed_in_backward(const WorkloadTrace& workload, const Scenario& scenario);

} // namespace gpuscale::model
