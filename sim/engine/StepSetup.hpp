#pragma once
/// Everything an executor needs to run one optimizer step, built once from the resolved scenario and
/// free of SimGrid objects: the topology, how ranks split into parallel groups and communicators,
/// each rank's step program and compute rate, and the GPU pairs the collectives send between.

#include "sim/engine/ParallelLayout.hpp"
#include "sim/engine/StepProgram.hpp"
#include "sim/engine/TopologyGraph.hpp"
#include "sim/engine/collectives/CommunicatorLayout.hpp"
#include "sim/model/Scenario.hpp"

#include <array>
#include <utility>
#include <vector>

namespace gpuscale::engine {

struct SymmetryFold;

/// The groups a stream talks to and the algorithm it requests.
struct StreamGroups {
  const std::vector<std::vector<int>>* groups = nullptr; ///< member GPU ranks of each group
  const std::vector<CommunicatorLayout>* layouts = nullptr;
  model::CollectiveAlgorithm algorithm = model::CollectiveAlgorithm::Auto;
};

struct StepSetup {
  /// Builds the setup of `resolved`, which must outlive it. Neither copied nor moved: the
  /// topology's edge descriptors point into its own graph.
  explicit StepSetup(const model::ResolvedScenario& resolved);
  StepSetup(const StepSetup&) = delete;
  StepSetup& operator=(const StepSetup&) = delete;

  const model::Scenario* scenario = nullptr;
  TopologyGraph topology;
  ParallelLayout parallel;
  std::vector<CommunicatorLayout> dp_layouts; ///< one per data-parallel group
  std::vector<CommunicatorLayout> tp_layouts;
  std::vector<CommunicatorLayout> cp_layouts;
  /// One program per distinct (GPU type, batch share); program_of_rank indexes it.
  std::vector<StepProgram> programs;
  std::vector<std::size_t> program_of_rank;
  std::vector<double> gpu_speed_flop_per_s;  ///< per rank: peak x compute efficiency
  std::vector<std::pair<int, int>> routes;   ///< (src, dst) GPU-rank pairs the collectives send on
  /// Some collective runs halving-doubling over GPUs of several nodes (routes holds its partners).
  bool halving_doubling_across_nodes = false;
  /// The fold found for this setup, when the caller looked for it once for several runs; null: the
  /// executor looks for it itself.
  const SymmetryFold* fold = nullptr;

  int gpus() const { return static_cast<int>(program_of_rank.size()); }
  const StepProgram& program_of(int rank) const { return programs[program_of_rank[static_cast<std::size_t>(rank)]]; }
  /// Groups and algorithm of `stream`: data-parallel ones for gradients and parameters (the
  /// scenario's algorithm), TP and CP groups with `auto`.
  StreamGroups groups_of(Stream stream) const;
  /// Index of the group `rank` belongs to on `stream`.
  int group_of(Stream stream, int rank) const;
};

} // namespace gpuscale::engine
