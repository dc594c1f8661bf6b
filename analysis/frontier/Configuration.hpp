#pragma once
/// One feasible run as the efficiency analysis sees it: the row and the figures derived from it.

#include "analysis/frontier/EnergyModel.hpp"
#include "sim/results/RunRecord.hpp"

#include <string>
#include <vector>

namespace gpuscale::analysis {

struct Configuration {
  results::RunRecord run;
  std::string series_key;         ///< runs that differ only in GPU count share it
  double time_s = 0;              ///< time_s(run): the one time metric
  double time_low_s = 0;          ///< 80 % interval of time_s (time_low_s/time_high_s(run)); equal to it
  double time_high_s = 0;         ///< for rows without an interval (docs/UNCERTAINTY.md)
  /// The global batch lies outside the convergence table's reference points: samples to converge,
  /// hence time_s, come from the critical-batch-size fit, not from a measurement.
  bool convergence_extrapolated = false;
  double gpu_hours = 0;           ///< gpus · time_s / 3600
  double cost_usd = 0;            ///< gpu_hours · price; NaN when the GPU has no catalog price
  double energy_kwh = 0;          ///< EnergyModel, in kWh (3.6e6 J); NaN when the GPU has no TDP
  double power_per_gpu_w = 0;
  double throughput_per_gpu = 0;  ///< samples/s per GPU
  double speedup = 1;             ///< T(N0) / T(N) in its series (N0 its fewest GPUs)
  double efficiency = 1;          ///< T(N0) N0 / (T(N) N)
  std::string variant;            ///< what tells its series apart from others of the same workload and platform

  /// "dgx-a100-128node-fattree x64 (ZeRO-1)": where, how many, and the variant if any.
  std::string label() const;
};

/// simgrid_config of rows that are published results (gpuscale mlperf import), not simulations.
inline constexpr const char* kPublishedResult = "published MLPerf result (not simulated)";

/// The feasible (outcome ok) rows of `runs`, with their derived figures. Speedup and efficiency are
/// filled in by scaling_series().
std::vector<Configuration> feasible_configurations(const std::vector<results::RunRecord>& runs,
                                                   const EnergyModel& energy);

} // namespace gpuscale::analysis
