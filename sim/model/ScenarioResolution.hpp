#pragma once
/// The one place where a scenario as written becomes the scenario a simulation runs: what every
/// entry point (run, each sweep point, plan, predict, calibrate, validate) goes through, so that
/// the same scenario gives the same run wherever it comes from.
///
/// Resolution checks that the scenario's values fit its platform and workload together, expands an
/// uneven batch allocation into one share per GPU rank, applies the calibration to a scenario that
/// states no efficiencies of its own (for the accelerators and fabric of the GPUs the run uses, each
/// accelerator type at its own generation's), and
/// picks the host data pipeline. It never reads files: its inputs are already-read model objects.

#include "sim/model/Calibration.hpp"
#include "sim/model/HostInputModel.hpp"
#include "sim/model/Scenario.hpp"

#include <string>
#include <utility>
#include <vector>

namespace gpuscale::model {

/// The engine simulates every accumulation step of a training step (measured 29 us each for
/// ResNet-50 on 8 GPUs, so 10^5 steps take about 3 s and 10^9 would take 8 hours): a step of more
/// micro-batches per GPU is refused rather than left to run for hours. docs/ROBUSTNESS.md, "Limits".
inline constexpr long long kMaxAccumulationSteps = 100'000;

/// A combination of scenario values that does not fit the platform or the workload.
struct ScenarioConflict {
  enum class Kind {
    GpuCount,  ///< more GPUs than the platform has, or not a multiple of the model-parallel group
    BatchSize, ///< the global batch does not split into the GPUs' shares
    Layout,    ///< tensor parallelism across nodes, a precision the accelerator lacks, an allocation
  };
  Kind kind = Kind::Layout;
  /// The scenario key the problem is reported at, as a path below the scenario mapping
  /// ("gpus", "batch_allocation/1/accelerator").
  std::string field;
  std::string message;
  /// Every scenario key whose value takes part in the conflict: a sweep over any of them can skip it.
  std::vector<std::string> keys;
};

/// What a scenario is resolved against: the already-read objects its paths name, and the calibration.
struct ScenarioInputs {
  const Platform* platform = nullptr;       ///< required
  const WorkloadTrace* workload = nullptr;  ///< required
  const ConvergenceTable* convergence = nullptr; ///< nullptr: no time to train, only iteration figures
  /// The host pipeline costs next to the workload; nullptr: there is no table.
  const std::vector<HostInputCost>* host_costs = nullptr;
  std::string host_costs_path; ///< for messages
  /// Its efficiencies apply when the scenario has none of its own (Scenario::efficiency_given false);
  /// its link fractions and collective costs always (the scenario's network what-ifs on top).
  /// nullptr: the scenario keeps the efficiencies it has, links at kDefaultLinkFraction.
  const Calibration* calibration = nullptr;
  /// The scenario's `network_calibration:` file (gpuscale calibrate-network's output): each value of its
  /// `network:` and `collective:` groups replaces the calibration's value of the same key. nullptr: none.
  const Calibration* network_calibration = nullptr;
  /// Add the calibration's per-run overhead to the convergence table and scale its samples by the
  /// calibration's convergence factor. Off only for the cases the calibration itself fits, which fit
  /// that overhead as a parameter of their own and converge at the table's samples.
  bool add_calibrated_run_overhead = true;
};

/// What resolution derives besides the scenario's own fields.
struct ScenarioResolution {
  std::vector<ScenarioConflict> conflicts; ///< empty when the scenario can run
  /// The scenario's convergence table, with the calibrated per-run overhead added and its samples
  /// times the calibration's convergence factor.
  std::optional<ConvergenceTable> convergence;
  std::optional<HostInputCost> host_input; ///< the host pipeline the scenario runs
};

/// Resolves `scenario` in place against `inputs`: on return it has its batch shares (from
/// batch_allocation), efficiencies (from the calibration, unless it states its own) and link
/// fractions (Scenario::links). Every
/// conflict found is returned; the derived fields are only meaningful when there is none.
ScenarioResolution resolve_scenario(Scenario& scenario, const ScenarioInputs& inputs);

/// The same for a ResolvedScenario whose platform, workload and convergence table are already in
/// place (built in code, e.g. from an MLPerf system description); `options` gives the rest (its
/// platform, workload and convergence are taken from `resolved`). The convergence table and host
/// pipeline of `resolved` are replaced by the resolution's.
std::vector<ScenarioConflict> resolve_in_place(ResolvedScenario& resolved, ScenarioInputs options);

/// The efficiencies `calibration` gives a run of `gpus` GPUs of `platform` with `workload`, for each
/// accelerator type the run uses (by GpuType::name, in the order the run first uses them): those of
/// the workload's benchmark and that type's generation, at `software_date` (nullopt: the calibration's
/// reference date).
std::vector<std::pair<std::string, Efficiency>> calibrated_efficiencies(const Calibration& calibration,
                                                                         const Platform& platform,
                                                                         const WorkloadTrace& workload, int gpus,
                                                                         std::optional<SoftwareDate> software_date = std::nullopt);

/// The calibration's link fractions and collective costs (defaults without one), each value that
/// `network_calibration` has (a cluster's own nccl-tests fit; nullptr: none) in place of the
/// calibration's value of the same key, then the network what-ifs of `what_ifs` applied.
LinkFractions resolve_link_fractions(const Calibration* calibration, const Calibration* network_calibration,
                                     const Efficiency& what_ifs);

} // namespace gpuscale::model
