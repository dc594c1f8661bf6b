/// gpuscale nccl-tests PLATFORM --op OP --gpus N [-b 8 -e 16G -f 2] [--collective NAME] [--format text|json]:
/// the table NVIDIA's nccl-tests prints (all_reduce_perf, ...), for the collective as gpuscale
/// simulates it on the platform's first N GPUs, so that a user can put their cluster's output beside it.

#include "sim/app/CatalogOption.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/NcclTestsTable.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/engine/CollectiveBenchmark.hpp"
#include "sim/engine/SimgridConfig.hpp"
#include "sim/engine/TopologyGraph.hpp"
#include "sim/model/Calibration.hpp"
#include "sim/model/ScenarioResolution.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

namespace gpuscale::app {
namespace {

struct NcclTestsOptions {
  std::string platform_path;
  std::string op;
  int gpus = 0;
  std::string min_bytes = "8";
  std::string max_bytes = "16G";
  int step_factor = 2;
  std::string collective = "auto";
  std::string format = "text";
  std::string network_calibration_path; ///< "": the committed calibration's links alone
};

/// The fractions the run's links get, in words: the first node's scale-up links, the NICs, NVLS, and
/// the fixed costs.
std::string describe_links(const model::Platform& platform, int gpus, const model::LinkFractions& links)
{
  std::string text;
  if (const auto used = platform.groups_used(gpus); !used.empty()) {
    const auto& node = platform.node_type_of_group(used.front().group);
    const std::string& generation = platform.gpu_type_of(node).generation;
    const auto scale_up = model::scale_up_link_class(node.fabric);
    text += fmt::format("{} {:.4g}", model::to_string(scale_up), links.of(scale_up, generation));
    if (node.in_switch_reduction)
      text += fmt::format(", nvls {:.4g}", links.nvls(generation));
  }
  text += fmt::format(", nic {:.4g} of line rate; fixed {:.3g} us, Simple step {:.3g} us per collective",
                      links.of(model::LinkClass::Nic, ""), links.collective_fixed_s * 1e6, links.simple_step_s * 1e6);
  return text;
}

/// The links a `gpuscale run` gets when its scenario states no network what-ifs: the committed
/// calibration's fractions (with a network calibration's, when given), through the function scenario
/// resolution applies (model::resolve_link_fractions), and SimGrid's settings as a scenario has them
/// by default. The one place the command chooses its link model.
engine::BenchmarkNetwork network_of_run(const std::string& network_calibration_path, std::string& source)
{
  // What every run gets: the committed calibration's link fractions, the same at any scale, with a
  // network calibration's values in place of theirs as a scenario's `network_calibration:` puts them.
  if (network_calibration_path.empty()) {
    source = "the committed calibration's link fractions, as every run uses them";
    return {model::resolve_link_fractions(&config::default_calibration(), nullptr, model::Efficiency{}),
            model::SimgridNetworkConfig{}};
  }
  const model::Calibration network = config::read_calibration(network_calibration_path);
  source = "the committed calibration's link fractions with those of " + network_calibration_path +
           ", as a run with network_calibration: " + network_calibration_path + " uses them";
  return {model::resolve_link_fractions(&config::default_calibration(), &network, model::Efficiency{}),
          model::SimgridNetworkConfig{}};
}

std::int64_t parse_size_option(const std::string& option, const std::string& text)
{
  const auto bytes = model::parse_nccl_tests_bytes(text);
  if (!bytes)
    throw std::invalid_argument(option + ": expected a size in bytes, an integer with an optional K, M or G suffix "
                                "(powers of 1024) as nccl-tests takes it, got '" + text + "'");
  return *bytes;
}

/// The requested sizes, as nccl-tests steps them: from -b while <= -e, times -f each time.
std::vector<std::int64_t> requested_sizes(std::int64_t min_bytes, std::int64_t max_bytes, int factor)
{
  std::vector<std::int64_t> sizes;
  for (std::int64_t size = min_bytes; size <= max_bytes; size *= factor) {
    sizes.push_back(size);
    if (size == 0 || size > max_bytes / factor)
      break;
  }
  return sizes;
}

std::vector<NcclTestsDevice> devices_of(const model::Platform& platform, int gpus)
{
  const engine::TopologyGraph topology = engine::build_topology(platform, gpus);
  std::vector<NcclTestsDevice> devices;
  for (int rank = 0; rank < gpus; ++rank) {
    const int node = topology.gpu_node[static_cast<std::size_t>(rank)];
    const int device = rank == 0 || topology.gpu_node[static_cast<std::size_t>(rank - 1)] != node
                           ? 0
                           : devices.back().device + 1;
    const model::GpuType& gpu = platform.gpu_types.at(topology.gpu_type[static_cast<std::size_t>(rank)]);
    devices.push_back({"node" + std::to_string(node), device, gpu.display_name.empty() ? gpu.name : gpu.display_name});
  }
  return devices;
}

void run_nccl_tests(const NcclTestsOptions& options)
{
  const auto op = model::parse_nccl_tests_collective(options.op);
  if (!op)
    throw std::invalid_argument("--op: unknown collective '" + options.op + "' (known: " +
                                model::known_nccl_tests_collectives() + ")");
  const std::int64_t min_bytes = parse_size_option("-b", options.min_bytes);
  const std::int64_t max_bytes = parse_size_option("-e", options.max_bytes);
  if (max_bytes < min_bytes)
    throw std::invalid_argument(fmt::format("-e: the largest size ({} B) is below the smallest, -b ({} B)", max_bytes,
                                            min_bytes));
  if (options.step_factor < 2)
    throw std::invalid_argument(fmt::format("-f: the step factor multiplies each size into the next: an integer "
                                            "of at least 2, got {}", options.step_factor));
  const auto algorithm = model::parse_collective_algorithm(options.collective);
  if (!algorithm)
    throw std::invalid_argument("--collective: unknown collective algorithm '" + options.collective + "' (known: " +
                                model::known_collective_algorithms() + ")");
  if (const auto problem = engine::benchmark_algorithm_problem(*op, *algorithm))
    throw std::invalid_argument("--collective: " + *problem);

  const model::Platform platform = config::read_platform(options.platform_path);
  if (options.gpus < 1 || options.gpus > platform.gpu_count())
    throw std::invalid_argument(fmt::format("--gpus: {} GPUs asked, {} has {} (at least 1)", options.gpus,
                                            options.platform_path, platform.gpu_count()));
  if (const auto problem = engine::benchmark_size_problem(*op, options.gpus))
    throw std::invalid_argument("--gpus: " + *problem);

  NcclTestsTable table;
  table.op = *op;
  table.platform_path = options.platform_path;
  table.collective = options.collective;
  table.min_bytes = min_bytes;
  table.max_bytes = max_bytes;
  table.step_factor = options.step_factor;
  table.devices = devices_of(platform, options.gpus);
  const engine::BenchmarkNetwork network = network_of_run(options.network_calibration_path, table.network_source);
  table.links = describe_links(platform, options.gpus, network.links);
  table.simgrid = engine::describe_simgrid_config(network.simgrid);

  engine::CollectiveBenchmarkSpec spec;
  spec.op = *op;
  spec.algorithm = *algorithm;
  spec.gpus = options.gpus;
  spec.root = model::nccl_tests_root(*op);
  std::vector<model::NcclTestsSize> sizes;
  for (std::int64_t requested : requested_sizes(min_bytes, max_bytes, options.step_factor)) {
    sizes.push_back(model::nccl_tests_size(*op, requested, options.gpus));
    spec.sizes_bytes.push_back(static_cast<double>(sizes.back().bytes));
  }
  const auto rows = engine::benchmark_collective(platform, spec, network);
  for (std::size_t i = 0; i < rows.size(); ++i)
    table.rows.push_back(make_nccl_tests_row(*op, options.gpus, sizes[i], rows[i].time_s, rows[i].algorithm));
  fmt::print("{}", options.format == "json" ? format_nccl_tests_json(table) : format_nccl_tests_text(table));
}

} // namespace

void add_nccl_tests_command(CLI::App& app)
{
  auto options = std::make_shared<NcclTestsOptions>();
  CLI::App* command = app.add_subcommand(
      "nccl-tests", "Print the nccl-tests table (all_reduce_perf, ...) of a collective simulated on a platform");
  command->add_option("platform", options->platform_path, "Platform (cluster) YAML file")->required();
  command->add_option("--op", options->op, "all_reduce, reduce_scatter, all_gather, broadcast or alltoall")->required();
  command->add_option("--gpus", options->gpus, "The platform's first N GPUs, as a run of N GPUs uses them")->required();
  command->add_option("-b,--minbytes", options->min_bytes, "Smallest size (nccl-tests' -b: 8, 32K, 1M, 2G; default 8)");
  command->add_option("-e,--maxbytes", options->max_bytes, "Largest size (nccl-tests' -e; default 16G)");
  command->add_option("-f,--stepfactor", options->step_factor, "Each size times this gives the next (default 2)");
  command->add_option("--collective", options->collective,
                      "Algorithm, as the scenario key collective takes it (default auto)");
  command->add_option("--format", options->format, "text (nccl-tests' table) or json")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_option("--network-calibration", options->network_calibration_path,
                      "Calibration file (gpuscale calibrate-network's output) whose network: and collective: values "
                      "replace the committed calibration's, as the scenario key network_calibration does");
  add_catalog_option(*command);
  command->callback([options] { run_nccl_tests(*options); });
}

} // namespace gpuscale::app
