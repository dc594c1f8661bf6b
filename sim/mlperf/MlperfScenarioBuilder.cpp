#include "sim/mlperf/MlperfScenarioBuilder.hpp"

#include "sim/mlperf/DataPaths.hpp"
#include "sim/mlperf/SubmitterLayout.hpp"
#include "sim/config/ConvergenceReader.hpp"
#include "sim/config/HostInputReader.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/config/WorkloadReader.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/ScenarioResolution.hpp"
#include "sim/model/ZeroStage.hpp"

#include <stdexcept>

namespace gpuscale::mlperf {

MlperfScenarioBuilder::MlperfScenarioBuilder()
    : catalog_(config::read_platform(catalog_path())),
      host_costs_(config::read_host_input(data_dir() + "/workloads/host_input/host_input.yaml"))
{
}

const model::WorkloadTrace& MlperfScenarioBuilder::workload(model::Benchmark benchmark)
{
  auto it = workloads_.find(benchmark);
  if (it == workloads_.end()) {
    it = workloads_.emplace(benchmark, config::read_workload(workload_path(benchmark))).first;
    convergence_.emplace(benchmark, config::read_convergence(data_dir() + "/workloads/convergence/" +
                                                             model::to_string(benchmark) + ".yaml"));
  }
  return it->second;
}

const model::ConvergenceTable& MlperfScenarioBuilder::convergence(model::Benchmark benchmark)
{
  (void)workload(benchmark);
  return convergence_.at(benchmark);
}

MlperfScenario MlperfScenarioBuilder::build(const model::MlperfSystem& system, model::Benchmark benchmark,
                                            int global_batch_size, int accumulation_steps,
                                            const model::Calibration& calibration,
                                            bool run_overhead, std::optional<model::SoftwareDate> software_date)
{
  MlperfScenario out;
  out.mapping = config::map_mlperf_system(system, catalog_);
  auto& r = out.resolved;
  r.platform = out.mapping.platform;
  // Whether the InfiniBand fabric reduces (SHARP) no system description says: the calibration's
  // declared choice decides, with the evidence it states (docs/MLPERF_DATA.md, "System description → platform").
  if (r.platform.fabric.in_network_reduction && !calibration.choice(model::kSharpOnInfinibandChoice, true)) {
    r.platform.fabric.in_network_reduction = false;
    out.mapping.notes.push_back("SHARP not assumed: the calibration's declared choice " +
                                std::string(model::kSharpOnInfinibandChoice) + " is 0");
  }
  r.workload = workload(benchmark);
  r.convergence = convergence_.at(benchmark);
  const model::GpuType& gpu = r.platform.gpu_types.at(out.mapping.gpu_type);
  auto& s = r.scenario;
  s.name = "mlperf-" + system.submitter + "-" + system.system_name + "-" + model::to_string(benchmark);
  s.platform_path = system.file;
  s.workload_path = workload_path(benchmark);
  s.gpus = system.accelerators_total();
  s.global_batch_size = global_batch_size;
  // The mapped node's GPUs, not the description's: GB200 trays of 4 are one NVLink domain of up to 72.
  const int gpus_per_node = r.platform.node_types.at(out.mapping.node_type).gpus_per_node;
  choose_submitter_layout(s, r.workload, gpu, gpus_per_node, accumulation_steps);
  // NVIDIA's submissions capture their training step in CUDA graphs; every other submitter's are
  // assumed to as well (no system description says), so every MLPerf calibration and predict
  // scenario runs as a CUDA graph (docs/MLPERF_DATA.md, "Layout rule") -- except where the ZeRO stage
  // forbids it (DeepSpeed's ZeRO-3 submissions: per-module gathers from host-side hooks).
  s.cuda_graph = model::allows_cuda_graph(s.zero());
  s.software_date = software_date;
  model::ScenarioInputs options;
  options.host_costs = &host_costs_;
  options.host_costs_path = data_dir() + "/workloads/host_input/host_input.yaml";
  options.calibration = &calibration;
  options.add_calibrated_run_overhead = run_overhead;
  const auto conflicts = model::resolve_in_place(r, options);
  if (!conflicts.empty())
    throw std::invalid_argument(conflicts.front().field == "software_date"
                                    ? conflicts.front().message
                                    : "the submitters' layout does not fit: " + conflicts.front().message);
  out.generation = gpu.generation;
  return out;
}

} // namespace gpuscale::mlperf
