#include "sim/app/Commands.hpp"
#include "sim/app/OutputPath.hpp"
#include "sim/app/ReplacedFile.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/engine/PlatformXmlExporter.hpp"
#include "sim/engine/TopologyGraph.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <unistd.h>

namespace gpuscale::app {
namespace {

struct ExportOptions {
  std::string platform_path;
  std::string output_path;
  std::string precision = "bf16";
};

void export_platform(const ExportOptions& options)
{
  (void)checked_output_path(options.output_path, {options.platform_path});
  const model::Platform platform = config::read_platform(options.platform_path);
  std::vector<std::string> inputs = platform.source_files; // the platform and the catalogs it imports
  inputs.push_back(options.platform_path);
  const std::string output = checked_output_path(options.output_path, inputs);
  const auto precision = model::parse_precision(options.precision);
  if (!precision)
    throw std::invalid_argument("unknown precision '" + options.precision + "' (known: " + model::known_precisions() + ")");
  const engine::TopologyGraph topology = engine::build_topology(platform, 0);
  std::vector<double> speeds;
  for (const auto& type : topology.gpu_type)
    speeds.push_back(platform.gpu_types.at(type).peak_for(*precision).value_or(0.0));

  write_replacing(output, [&](std::ostream& out) { engine::write_simgrid_xml(topology, speeds, out); });
  fmt::print("wrote {} ({} GPUs, {} vertices, {} edges; host speeds = {} peak)\n", options.output_path,
             topology.gpu_vertices.size(), boost::num_vertices(topology.graph), topology.edges_by_id.size(),
             options.precision);
}

} // namespace

void add_platform_command(CLI::App& app)
{
  CLI::App* platform = app.add_subcommand("platform", "Inspect platform files");
  platform->require_subcommand(1);
  auto options = std::make_shared<ExportOptions>();
  CLI::App* command = platform->add_subcommand("export", "Write the SimGrid XML equivalent of a platform");
  command->add_option("platform", options->platform_path, "Platform (cluster) YAML file")->required();
  command->add_option("-o,--output", options->output_path, "SimGrid XML file to write")->required();
  command->add_option("--precision", options->precision, "Precision whose peak sets the host speeds (default bf16)");
  command->callback([options] { export_platform(*options); });
}

} // namespace gpuscale::app
