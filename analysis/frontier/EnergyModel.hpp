#pragma once
/// Energy of a run from board power (TDP) and a utilisation model, since the simulator has no power
/// model of its own:
///   P_gpu = P_idle + (TDP - P_idle) · u,   P_idle = idle_fraction · TDP,
///   u = compute_time_s / iter_time_s       (the share of a step the GPU spends in kernels),
///   E = gpus · P_gpu · time_s(run).
/// GPUs only: host CPUs, memory, NICs, switches and cooling are left out, so E is a lower bound on
/// the facility's energy. The default idle fraction 0.25 is an assumption (a GPU waiting on
/// communication keeps its clocks and memory up, so it draws more than a parked one).

#include "sim/results/RunRecord.hpp"

namespace gpuscale::analysis {

struct EnergyModel {
  double idle_fraction = 0.25;

  /// Mean board power of one GPU of the run, in watts.
  double power_per_gpu_w(const results::RunRecord& run) const;
  /// Energy of all the run's GPUs over time_s(run), in joules.
  double energy_j(const results::RunRecord& run) const;
};

} // namespace gpuscale::analysis
