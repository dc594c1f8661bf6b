#pragma once
/// Builds the scenario of one MLPerf result (or of a system to predict): the catalog platform of the
/// system description, the benchmark's workload trace, convergence table and host pipeline, and the
/// layout submitters use (SubmitterLayout), the step captured as a CUDA graph (cuda_graph).

#include "sim/config/MlperfPlatformMapper.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/HostInputModel.hpp"
#include "sim/model/MlperfSystem.hpp"
#include "sim/model/Scenario.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::mlperf {

struct MlperfScenario {
  model::ResolvedScenario resolved;
  config::MlperfPlatformMapping mapping;
  std::string generation;   ///< accelerator generation (catalog)
};

class MlperfScenarioBuilder {
public:
  /// Reads the catalog (calibration/catalog.yaml under data_dir()). Throws ConfigError.
  MlperfScenarioBuilder();

  /// The scenario, resolved (model::resolve_in_place) with `calibration`'s efficiencies and, where
  /// `run_overhead` says so, its per-run overhead; at `software_date` (Scenario::software_date; nullopt:
  /// the calibration's reference date). Throws ConfigError (unknown accelerator, CPU-only system) or
  /// std::invalid_argument (no layout, a layout that does not fit, a date beyond the trend's horizon).
  /// `accumulation_steps` > 0: the submission's logged gradient accumulation (choose_submitter_layout).
  MlperfScenario build(const model::MlperfSystem& system, model::Benchmark benchmark, int global_batch_size,
                       int accumulation_steps, const model::Calibration& calibration, bool run_overhead,
                       std::optional<model::SoftwareDate> software_date = std::nullopt);

  const model::Platform& catalog() const { return catalog_; }
  /// The benchmark's convergence table (workloads/convergence/), read with its trace on first use.
  const model::ConvergenceTable& convergence(model::Benchmark benchmark);

private:
  const model::WorkloadTrace& workload(model::Benchmark benchmark);

  model::Platform catalog_;
  std::map<model::Benchmark, model::WorkloadTrace> workloads_;
  std::map<model::Benchmark, model::ConvergenceTable> convergence_;
  std::vector<model::HostInputCost> host_costs_;
};

} // namespace gpuscale::mlperf
