#include "sim/app/Commands.hpp"
#include "sim/config/ConvergenceWriter.hpp"

#include <fmt/format.h>

#include <memory>

namespace gpuscale::app {
namespace {

struct ConvergenceOptions {
  config::ConvergenceRegeneration request;
  std::string output_path;
};

void regenerate(const ConvergenceOptions& options)
{
  config::write_convergence_yaml(options.request, options.output_path);
  const auto table = config::regenerate_convergence({options.request.rcp_json_path, options.request.benchmark,
                                                     options.output_path});
  fmt::print("wrote {} ({} reference points, global batch {}..{})\n", options.output_path, table.points.size(),
             table.points.front().global_batch_size, table.points.back().global_batch_size);
}

} // namespace

void add_workload_command(CLI::App& app)
{
  CLI::App* workload = app.add_subcommand("workload", "Derived workload tables");
  workload->require_subcommand(1);
  auto options = std::make_shared<ConvergenceOptions>();
  CLI::App* command = workload->add_subcommand(
      "convergence", "Regenerate a convergence table's points from an MLPerf RCP file (keeps its other fields)");
  command->add_option("--rcp", options->request.rcp_json_path, "MLPerf rcps_<benchmark>.json")->required();
  command->add_option("--benchmark", options->request.benchmark, "gpuscale benchmark name (bert, resnet, ...)")
      ->required();
  command->add_option("-o,--output", options->output_path, "Convergence YAML to (re)write")->required();
  command->add_option("--template", options->request.template_yaml_path,
                      "Table whose non-point fields are kept (default: the output file)");
  command->callback([options] { regenerate(*options); });
}

} // namespace gpuscale::app
