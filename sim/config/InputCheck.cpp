#include "sim/config/InputCheck.hpp"

#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ConvergenceReader.hpp"
#include "sim/config/HostInputReader.hpp"
#include "sim/config/KernelTimingReader.hpp"
#include "sim/config/MappingReader.hpp"
#include "sim/config/MlperfLogReader.hpp"
#include "sim/config/MlperfPlatformMapper.hpp"
#include "sim/config/MlperfSystemReader.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/config/RcpReader.hpp"
#include "sim/config/ScenarioReader.hpp"
#include "sim/config/SweepReader.hpp"
#include "sim/model/Benchmark.hpp"
#include "sim/config/WorkloadReader.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/units/Quantity.hpp"

#include <cstdio>
#include <filesystem>
#include <optional>

namespace gpuscale::config {
namespace {

constexpr const char* kKnownTopLevelKeys =
    "cluster (platform), accelerators or node_types (catalog), workload, scenario (with sweep: a sweep), "
    "convergence, host_input, calibration, timings (kernel timings)";

std::string plural(std::size_t count, const std::string& noun)
{
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

std::string format_count(double value)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

/// The kind a YAML document's top-level keys say it is; nullopt (and a diagnostic) if they do not say.
std::optional<InputKind> kind_of(const YAML::Node& root, const std::string& path, Diagnostics& diagnostics)
{
  if (!root.IsMap()) {
    report(diagnostics, path, root, "/",
           std::string("expected a mapping with one of the top-level keys ") + kKnownTopLevelKeys);
    return std::nullopt;
  }
  const YAML::Node& node = root;
  auto has = [&node](const char* key) { return node[key].IsDefined(); };
  if (has("sweep"))
    return InputKind::Sweep;
  if (has("scenario"))
    return InputKind::Scenario;
  if (has("cluster"))
    return InputKind::Platform;
  if (has("accelerators") || has("node_types"))
    return InputKind::Catalog;
  if (has("workload"))
    return InputKind::Workload;
  if (has("convergence"))
    return InputKind::Convergence;
  if (has("host_input"))
    return InputKind::HostInput;
  if (has("calibration"))
    return InputKind::Calibration;
  if (has("timings"))
    return InputKind::KernelTimings;
  std::string keys;
  for (auto it = node.begin(); it != node.end(); ++it)
    keys += (keys.empty() ? "" : ", ") + (it->first.IsScalar() ? it->first.Scalar() : std::string("?"));
  report(diagnostics, path, root, "/",
         "cannot tell what kind of input this is: expected one of the top-level keys " + std::string(kKnownTopLevelKeys) +
             "; got " + (keys.empty() ? std::string("none") : keys));
  return std::nullopt;
}

/// An MLPerf system description names its hardware; an RCP file is an object of records.
InputKind json_kind(const std::string& path)
{
  Diagnostics ignored; // the reader chosen reports the file's problems itself
  const auto root = load_yaml_file(path, ignored);
  if (root && root->IsMap()) {
    const YAML::Node& node = *root;
    for (const char* key : {"number_of_nodes", "accelerators_per_node", "accelerator_model_name"})
      if (node[key].IsDefined())
        return InputKind::MlperfSystem;
  }
  return InputKind::Rcp;
}

/// A log's problem ("<path>[:<line>]: message", see MlperfRun::problem) as a diagnostic.
Diagnostic log_problem(const std::string& path, const std::string& problem)
{
  std::string rest = problem.compare(0, path.size(), path) == 0 ? problem.substr(path.size()) : ": " + problem;
  int line = 0;
  const std::size_t end = rest.find(':', 1);
  if (rest.size() > 1 && rest[0] == ':' && end != std::string::npos && end > 1 && end <= 10 &&
      rest.find_first_not_of("0123456789", 1) == end) {
    line = std::stoi(rest.substr(1, end - 1));
    rest = rest.substr(end);
  }
  return {path, line, line > 0 ? 1 : 0, "", rest.size() >= 2 ? rest.substr(2) : rest};
}

/// A result log is valid input when it shows one complete, converged run of a benchmark gpuscale models.
std::string check_mlperf_log(const std::string& path, const std::string& text)
{
  const auto first = parse_mlperf_log(text, path, "");
  const auto benchmark = model::parse_benchmark(first.submission_benchmark);
  if (!benchmark)
    throw ConfigError({{path, 0, 0, "",
                        "MLPerf log of benchmark '" + first.submission_benchmark +
                            "' (submission_benchmark), which gpuscale does not model (known: bert, llama2_70b_lora, "
                            "resnet, retinanet or ssd, stable_diffusion)"}});
  const auto run = parse_mlperf_log(text, path, model::to_string(*benchmark));
  if (!run.valid())
    throw ConfigError({log_problem(path, run.problem)});
  return "MLPerf " + model::to_string(*benchmark) + " log: converged in " + format_count(units::to_minutes(run.run_s())) + " min after " +
         format_count(run.samples_to_converge) + " samples, global batch " + std::to_string(run.global_batch_size);
}

std::string describe_platform(const model::Platform& platform)
{
  return "platform '" + platform.name + "' (" + plural(static_cast<std::size_t>(platform.gpu_count()), "GPU") + " in " +
         plural(static_cast<std::size_t>(platform.node_count()), "node") + ")";
}

/// Whether `text` has an MLLOG record: ":::MLLOG {" on a line that is not a YAML comment (a scenario
/// whose comment mentions the marker stays a scenario). Real logs may prefix the marker ("[1,0]<stdout>:").
bool has_mllog_line(const std::string& text)
{
  for (std::size_t at = text.find(":::MLLOG {"); at != std::string::npos; at = text.find(":::MLLOG {", at + 1)) {
    const std::size_t line_start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
    const std::size_t first = text.find_first_not_of(" \t", line_start);
    if (first != std::string::npos && text[first] != '#')
      return true;
  }
  return false;
}

} // namespace

std::string to_string(InputKind kind)
{
  switch (kind) {
    case InputKind::Platform: return "platform";
    case InputKind::Catalog: return "catalog";
    case InputKind::Workload: return "workload";
    case InputKind::Scenario: return "scenario";
    case InputKind::Sweep: return "sweep";
    case InputKind::Convergence: return "convergence";
    case InputKind::HostInput: return "host_input";
    case InputKind::Calibration: return "calibration";
    case InputKind::KernelTimings: return "kernel_timings";
    case InputKind::Rcp: return "rcp";
    case InputKind::MlperfSystem: return "mlperf_system";
    case InputKind::MlperfLog: return "mlperf_log";
  }
  return "?";
}

CheckedInput check_input(const std::string& path, const model::Platform* mlperf_catalog)
{
  CheckedInput checked;
  if (std::filesystem::path(path).extension() == ".json") {
    checked.kind = json_kind(path);
  } else {
    Diagnostics diagnostics;
    const auto text = read_text_file(path, diagnostics);
    diagnostics.throw_if_any();
    if (has_mllog_line(*text))
      return {InputKind::MlperfLog, check_mlperf_log(path, *text)};
    auto root = load_yaml_text(*text, path, diagnostics);
    std::optional<InputKind> kind;
    if (root)
      kind = kind_of(*root, path, diagnostics);
    diagnostics.throw_if_any();
    checked.kind = *kind;
  }
  switch (checked.kind) {
    case InputKind::Platform:
      checked.summary = describe_platform(read_platform(path));
      break;
    case InputKind::Catalog: {
      const auto catalog = read_platform_catalog(path);
      checked.summary = "catalog: " + plural(catalog.gpu_types.size(), "accelerator") + ", " +
                        plural(catalog.node_types.size(), "node type");
      break;
    }
    case InputKind::Workload: {
      const auto workload = read_workload(path);
      checked.summary = "workload '" + workload.name + "': " + plural(workload.layers.size(), "layer") + ", " +
                        format_count(workload.trainable_params()) + " trainable parameters";
      break;
    }
    case InputKind::Scenario: {
      const auto resolved = read_scenario(path);
      checked.summary = "scenario '" + resolved.scenario.name + "': " +
                        plural(static_cast<std::size_t>(resolved.scenario.gpus), "GPU") + " of " +
                        describe_platform(resolved.platform) + "; workload '" + resolved.workload.name + "'";
      break;
    }
    case InputKind::Sweep: {
      const auto sweep = read_sweep(path);
      checked.summary = "sweep '" + sweep.name + "': " + std::to_string(sweep.points_total) + " points, " +
                        std::to_string(sweep.points.size()) + " to simulate, " + std::to_string(sweep.skipped.size()) +
                        " skipped";
      break;
    }
    case InputKind::Convergence: {
      const auto table = read_convergence(path);
      checked.summary = "convergence table '" + table.benchmark + "': " + plural(table.points.size(), "point");
      break;
    }
    case InputKind::HostInput:
      checked.summary = "host input costs: " + plural(read_host_input(path).size(), "pipeline");
      break;
    case InputKind::Calibration:
      read_calibration(path);
      checked.summary = "calibration";
      break;
    case InputKind::KernelTimings:
      checked.summary = "kernel timings: " + plural(read_kernel_timings(path).timings.size(), "kernel");
      break;
    case InputKind::Rcp: {
      const auto rcp = read_rcp_file(path);
      checked.summary = "RCP file '" + rcp.benchmark + "': " + plural(rcp.points.size(), "batch size");
      break;
    }
    case InputKind::MlperfSystem: {
      const auto system = read_mlperf_system(path);
      checked.summary = "MLPerf system '" + system.system_name + "': " +
                        plural(static_cast<std::size_t>(system.number_of_nodes), "node") + " x " +
                        std::to_string(system.accelerators_per_node) + " " + system.accelerator_model_name;
      if (mlperf_catalog != nullptr)
        checked.summary += " (catalog " + map_mlperf_system(system, *mlperf_catalog).gpu_type + ")";
      break;
    }
    case InputKind::MlperfLog: // handled above, from the text already read
      break;
  }
  return checked;
}

} // namespace gpuscale::config
