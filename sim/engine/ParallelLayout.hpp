#pragma once
/// How a job's GPU ranks split into tensor-, context-, pipeline- and data-parallel groups, in the
/// order [TP, CP, PP, DP] from innermost to outermost (Llama 3's order, Dubey et al. 2024 sec. 3.3.2;
/// Megatron-LM's --use-tp-pp-dp-mapping): a TP group stays on consecutive GPUs of one node, a model
/// replica's stages on consecutive nodes, and replicas repeat one another:
///   rank = ((dp_index · pp + pp_index) · cp + cp_index) · tp + tp_index
/// Without pipeline parallelism (pp = 1) this is Megatron's default order.

#include "sim/model/Scenario.hpp"

#include <vector>

namespace gpuscale::engine {

struct ParallelLayout {
  int tp = 1;
  int cp = 1;
  int pp = 1;
  int dp = 1;
  std::vector<std::vector<int>> data_parallel_groups;    ///< one per (pp_index, cp_index, tp_index)
  std::vector<std::vector<int>> tensor_parallel_groups;  ///< one per (dp_index, pp_index, cp_index)
  std::vector<std::vector<int>> context_parallel_groups; ///< one per (dp_index, pp_index, tp_index)

  int replica_ranks() const { return tp * cp * pp; }
  int data_parallel_group_of(int rank) const { return rank % replica_ranks(); }
  int tensor_parallel_group_of(int rank) const { return rank / tp; }
  int context_parallel_group_of(int rank) const { return (rank / (tp * cp)) * tp + rank % tp; }
  int data_parallel_index(int rank) const { return rank / replica_ranks(); }
  int tensor_parallel_index(int rank) const { return rank % tp; }
  int context_parallel_index(int rank) const { return (rank / tp) % cp; }
  int pipeline_index(int rank) const { return (rank / (tp * cp)) % pp; }
  /// The rank holding the same TP and CP position on the next (previous) stage of the replica; the
  /// stages form a ring (the interleaved schedule sends from the last stage to the first).
  int next_stage_rank(int rank) const { return stage_rank(rank, (pipeline_index(rank) + 1) % pp); }
  int previous_stage_rank(int rank) const { return stage_rank(rank, (pipeline_index(rank) + pp - 1) % pp); }

private:
  int stage_rank(int rank, int stage) const { return rank + (stage - pipeline_index(rank)) * tp * cp; }
};

ParallelLayout make_parallel_layout(const model::Scenario& scenario);

} // namespace gpuscale::engine
