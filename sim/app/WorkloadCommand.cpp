#include "sim/app/Commands.hpp"
#include "sim/app/WorkloadKernelsCommand.hpp"
#include "sim/config/ConvergenceReader.hpp"
#include "sim/config/ConvergenceWriter.hpp"
#include "sim/mlperf/DataPaths.hpp"
#include "sim/model/Benchmark.hpp"
#include "sim/model/ConvergenceModel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace gpuscale::app {
namespace {

struct ConvergenceOptions {
  config::ConvergenceRegeneration request;
  std::string output_path;
  std::vector<std::string> tables;
};

/// The shipped tables, sorted: <data dir>/workloads/convergence/*.yaml.
std::vector<std::string> shipped_tables()
{
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(mlperf::data_dir() + "/workloads/convergence"))
    if (entry.path().extension() == ".yaml")
      paths.push_back(entry.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

/// The critical-batch-size fit of a table and its leave-largest-out check, as printed.
std::string format_fit_report(const std::string& path, const model::ConvergenceTable& table)
{
  const model::ConvergenceModel convergence = table.model();
  const auto& curve = convergence.curve();
  std::string out = fmt::format("convergence {} ({}): {} reference points, global batch {}..{}\n", table.benchmark,
                                path, curve.points().size(), curve.min_global_batch_size(),
                                curve.max_global_batch_size());
  if (!convergence.fit()) {
    out += fmt::format("  fit        none: fewer than {} points; outside the points the nearest one's samples\n",
                       model::ConvergenceFit::kMinPoints);
    return out;
  }
  const auto& fit = *convergence.fit();
  out += fmt::format("  fit        E(B) = E_min (1 + B / B_noise): E_min {:.4g} ± {:.2g} samples, S_min {:.4g} ± {:.2g} "
                     "steps, B_noise {:.4g}{}; relative scatter {:.1f} %, {} degree(s) of freedom\n",
                     fit.min_samples(), fit.min_samples_error(), fit.min_steps(), fit.min_steps_error(),
                     fit.noise_batch_size(), fit.constraint().empty() ? "" : " (" + fit.constraint() + ")",
                     100 * fit.relative_scatter(), fit.degrees_of_freedom());
  const auto held_out = model::predict_largest_held_out(curve);
  if (!held_out) {
    out += "  held out   not possible: the other points are too few for a fit\n";
    return out;
  }
  out += fmt::format("  held out   largest batch {}: measured {:.4g} samples, predicted from the others {:.4g} "
                     "[{:.4g}, {:.4g}] ({:.0f} %), error {:+.1f} % ({} the interval)\n",
                     held_out->global_batch_size, held_out->measured_samples, held_out->predicted.samples,
                     held_out->predicted.samples_low, held_out->predicted.samples_high,
                     100 * model::kConvergenceIntervalLevel, 100 * held_out->relative_error(),
                     held_out->covered() ? "inside" : "outside");
  return out;
}

void convergence(ConvergenceOptions options)
{
  if (!options.request.benchmark.empty()) { // any name the benchmark goes by (bert-large, ssd, ...)
    const auto name = model::parse_benchmark(options.request.benchmark);
    if (!name)
      throw std::invalid_argument("workload convergence: unknown benchmark '" + options.request.benchmark +
                                  "' (known: bert, llama2_70b_lora, resnet, retinanet, stable_diffusion)");
    options.request.benchmark = model::to_string(*name);
  }
  const bool regenerating = !options.request.rcp_json_path.empty() || !options.request.benchmark.empty() ||
                            !options.output_path.empty();
  if (regenerating) {
    if (options.request.rcp_json_path.empty() || options.request.benchmark.empty() || options.output_path.empty())
      throw std::invalid_argument("workload convergence: regenerating a table needs --rcp, --benchmark and -o together");
    if (!options.tables.empty())
      throw std::invalid_argument("workload convergence: give either tables to report on or --rcp/--benchmark/-o, not both");
    config::write_convergence_yaml(options.request, options.output_path);
    const auto table = config::regenerate_convergence({options.request.rcp_json_path, options.request.benchmark,
                                                       options.output_path});
    fmt::print("wrote {} ({} reference points, global batch {}..{})\n", options.output_path, table.points.size(),
               table.points.front().global_batch_size, table.points.back().global_batch_size);
    fmt::print("{}", format_fit_report(options.output_path, table));
    return;
  }
  const auto paths = options.tables.empty() ? shipped_tables() : options.tables;
  for (const auto& path : paths)
    fmt::print("{}", format_fit_report(path, config::read_convergence(path)));
}

} // namespace

void add_workload_command(CLI::App& app)
{
  CLI::App* workload = app.add_subcommand("workload", "Derived workload tables");
  workload->require_subcommand(1);
  auto options = std::make_shared<ConvergenceOptions>();
  CLI::App* command = workload->add_subcommand(
      "convergence", "Report each convergence table's critical-batch-size fit and leave-largest-out error (default: "
                     "the shipped tables), or regenerate a table's points from an MLPerf RCP file (keeps its other "
                     "fields) with --rcp, --benchmark and -o");
  command->add_option("tables", options->tables, "Convergence YAML files to report on")->check(CLI::ExistingFile);
  command->add_option("--rcp", options->request.rcp_json_path, "MLPerf rcps_<benchmark>.json");
  command->add_option("--benchmark", options->request.benchmark, "benchmark: gpuscale, MLPerf or workload name (bert, bert-large, ssd, ...)");
  command->add_option("-o,--output", options->output_path, "Convergence YAML to (re)write");
  command->add_option("--template", options->request.template_yaml_path,
                      "Table whose non-point fields are kept (default: the output file)");
  command->callback([options] { convergence(*options); });
  add_workload_kernels_command(*workload);
}

} // namespace gpuscale::app
