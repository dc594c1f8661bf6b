#pragma once
/// How a job's GPU ranks split into tensor-, context- and data-parallel groups (Megatron order: TP
/// innermost so a TP group stays on consecutive GPUs of one node, then CP, then DP):
///   rank = (dp_index · cp + cp_index) · tp + tp_index

#include "sim/model/Scenario.hpp"

#include <vector>

namespace gpuscale::engine {

struct ParallelLayout {
  int tp = 1;
  int cp = 1;
  int dp = 1;
  std::vector<std::vector<int>> data_parallel_groups;    ///< one per (cp_index, tp_index)
  std::vector<std::vector<int>> tensor_parallel_groups;  ///< one per (dp_index, cp_index)
  std::vector<std::vector<int>> context_parallel_groups; ///< one per (dp_index, tp_index)

  int data_parallel_group_of(int rank) const { return rank % (tp * cp); }
  int tensor_parallel_group_of(int rank) const { return rank / tp; }
  int context_parallel_group_of(int rank) const { return (rank / (tp * cp)) * tp + rank % tp; }
  int data_parallel_index(int rank) const { return rank / (tp * cp); }
  int tensor_parallel_index(int rank) const { return rank % tp; }
  int context_parallel_index(int rank) const { return (rank / tp) % cp; }
};

ParallelLayout make_parallel_layout(const model::Scenario& scenario);

} // namespace gpuscale::engine
