#include "sim/app/WorkloadKernelsCommand.hpp"

#include "analysis/calibration/KernelTimingCheck.hpp"
#include "sim/app/CatalogOption.hpp"
#include "sim/config/CalibrationReader.hpp"
#include "sim/config/KernelTimingReader.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/engine/ComputeCostModel.hpp"
#include "sim/engine/KernelTimingModel.hpp"
#include "sim/mlperf/DataPaths.hpp"
#include "sim/model/Benchmark.hpp"
#include "sim/model/Calibration.hpp"

#include <fmt/format.h>

#include <memory>
#include <stdexcept>

namespace gpuscale::app {
namespace {

struct KernelsOptions {
  std::string timings_path;
  std::string accelerator;
  std::string calibration_path; ///< "": the embedded calibration
  std::string benchmark;        ///< efficiencies of the kernels that name no workload ("": the defaults)
  bool list = false;
};

std::string shape_text(const model::Kernel& kernel)
{
  return std::visit(
      [](const auto& s) -> std::string {
        using S = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<S, model::GemmShape>)
          return fmt::format("m {} n {} k {} batch {}", s.m, s.n, s.k, s.batch);
        else if constexpr (std::is_same_v<S, model::ConvShape>)
          return fmt::format("{}x{}x{} -> {} r{}x{} /{} g{}", s.h, s.w, s.c, s.k, s.r, s.s, s.stride, s.groups);
        else if constexpr (std::is_same_v<S, model::AttentionShape>)
          return fmt::format("heads {}/{} q {} kv {} d {}{}", s.heads, s.kv_heads, s.q, s.kv, s.head_dim,
                             s.causal ? " causal" : "");
        else
          return fmt::format("{} elements x {} B", s.elements, s.bytes_per_element);
      },
      kernel.shape);
}

/// The efficiencies a timed kernel is priced at: those of its workload's benchmark on `gpu`, at the
/// calibration's reference date.
model::Efficiency efficiency_of(const model::KernelTiming& timing, const model::Calibration& calibration,
                                const model::GpuType& gpu, std::optional<model::Benchmark> fallback)
{
  const auto benchmark = timing.workload.empty() ? fallback : model::parse_benchmark(timing.workload);
  return calibration.efficiency_for(benchmark, gpu.generation, gpu.generation_available_year);
}

std::string microseconds(double seconds) { return fmt::format("{:.2f} us", seconds * 1e6); }

void kernels(const KernelsOptions& options)
{
  // calibration/catalog.yaml: a cluster file importing the whole catalog (and --catalog files).
  const model::Platform catalog = config::read_platform(mlperf::catalog_path());
  const auto gpu_it = catalog.gpu_types.find(options.accelerator);
  if (gpu_it == catalog.gpu_types.end()) {
    std::string known;
    for (const auto& [name, type] : catalog.gpu_types)
      known += (known.empty() ? "" : ", ") + name;
    throw std::invalid_argument("workload kernels: unknown accelerator '" + options.accelerator + "' (known: " +
                                known + ")");
  }
  const model::GpuType& gpu = gpu_it->second;
  std::optional<model::Benchmark> fallback;
  if (!options.benchmark.empty()) {
    fallback = model::parse_benchmark(options.benchmark);
    if (!fallback)
      throw std::invalid_argument("workload kernels: unknown benchmark '" + options.benchmark +
                                  "' (known: " + model::known_benchmark_names() + ")");
  }
  const model::Calibration calibration = options.calibration_path.empty()
                                             ? config::default_calibration()
                                             : config::read_calibration(options.calibration_path);
  const model::KernelTimings timings = config::read_kernel_timings(options.timings_path);

  fmt::print("kernel timings {} ({} kernels) against the kernel model on {} ({} compute units, {:.0f} GB/s HBM)\n",
             options.timings_path, timings.timings.size(), gpu.name, gpu.compute_units, gpu.memory_bw_Bps / 1e9);
  for (const auto& [key, value] : timings.environment) {
    fmt::print("  {}: {}\n", key, value);
    if (key == "sm_count" && value != std::to_string(gpu.compute_units))
      fmt::print("  note: the GPU timed has {} SMs, the catalog's {} has {}: the products are quantised over the "
                 "catalog's\n", value, gpu.name, gpu.compute_units);
  }
  const model::Efficiency synthetic = calibration.efficiency_for(fallback, gpu.generation, gpu.generation_available_year);
  fmt::print("model: {} calibration, each kernel at its workload's benchmark efficiencies on {}, kernels of no "
             "workload at compute {:.3g} and memory {:.3g} ({}); {} per kernel launched from a CUDA graph\n",
             options.calibration_path.empty() ? "the embedded" : options.calibration_path, gpu.generation,
             synthetic.compute, synthetic.memory,
             fallback ? model::to_string(*fallback) + "'s" : "no benchmark named: the defaults",
             microseconds(engine::kGraphLaunch_s));

  std::vector<analysis::KernelTimingPoint> points;
  points.reserve(timings.timings.size());
  if (options.list)
    fmt::print("\n{:<6} {:<12} {:<16} {:<15} {:>5} {:<44} {:>11} {:>11} {:>7} {:>6}\n", "source", "workload", "op",
               "pass", "micro", "shape", "measured", "model", "ratio", "roof");
  for (const auto& timing : timings.timings) {
    const auto modelled =
        engine::model_timed_kernel(timing, gpu, efficiency_of(timing, calibration, gpu, fallback));
    analysis::KernelTimingPoint p;
    p.source = timing.source;
    p.op = timing.kernel.op_name();
    p.pass = timing.pass;
    p.workload = timing.workload;
    p.micro_batch = timing.micro_batch;
    p.count = timing.count;
    p.measured_s = timing.graph_s;
    p.eager_s = timing.eager_s;
    p.bytes = modelled.cost.bytes;
    p.roof_s = modelled.roof_s;
    p.model_s = modelled.model_s + engine::kGraphLaunch_s;
    p.memory_bound = modelled.memory_bound;
    points.push_back(p);
    if (options.list)
      fmt::print("{:<6} {:<12} {:<16} {:<15} {:>5} {:<44} {:>11} {:>11} {:>7.2f} {:>5.0f}%\n",
                 model::to_string(timing.source), timing.workload.substr(0, 12),
                 p.op + " " + model::to_string(timing.precision), model::to_string(timing.pass), timing.micro_batch,
                 shape_text(timing.kernel).substr(0, 44), microseconds(p.measured_s), microseconds(p.model_s),
                 p.measured_s / p.model_s, 100 * p.roof_s / p.measured_s);
  }

  const auto check = analysis::check_kernel_timings(points, gpu.memory_bw_Bps);
  fmt::print("\nby op and pass: measured / modelled (median [p10, p90]); datasheet roofline reached (median)\n");
  for (const auto& op : check.ops)
    fmt::print("  {:<12} {:<16} {:>5} kernels  {:.2f} [{:.2f}, {:.2f}]  {:.0f} %\n", op.op, model::to_string(op.pass),
               op.kernels, op.median_ratio, op.p10_ratio, op.p90_ratio, 100 * op.median_roof_fraction);
  if (check.streaming)
    fmt::print("memory-bound kernels ({}): measured = {} (± {}) + bytes / ({:.3f} ± {:.3f} x the datasheet's {:.0f} "
               "GB/s); the model: {} launch + bytes / (memory efficiency x bandwidth)\n",
               check.streaming->kernels, microseconds(check.streaming->fixed_s),
               microseconds(check.streaming->fixed_s_error), check.streaming->bandwidth_fraction,
               check.streaming->bandwidth_fraction_error, gpu.memory_bw_Bps / 1e9,
               microseconds(engine::kGraphLaunch_s));
  else
    fmt::print("memory-bound kernels: too few sizes to fit a fixed time and a bandwidth\n");
  if (check.launch_graph_s)
    fmt::print("smallest kernel (source launch): {} per kernel replayed from a CUDA graph; the model charges {}\n",
               microseconds(*check.launch_graph_s), microseconds(engine::kGraphLaunch_s));
  if (check.launch_eager_s)
    fmt::print("smallest kernel launched by the host: {} per kernel; the model charges {}\n",
               microseconds(*check.launch_eager_s), microseconds(engine::kEagerLaunch_s));
  if (!check.workloads.empty()) {
    fmt::print("per workload and micro-batch, the timed trace kernels x their count per pass:\n");
    for (const auto& w : check.workloads)
      fmt::print("  {:<20} micro-batch {:>4}  {:>4} kernels  measured {:>10.3f} ms  modelled {:>10.3f} ms  "
                 "ratio {:.2f}  (model: {:.0f} % memory-bound)\n",
                 w.workload, w.micro_batch, w.kernels, w.measured_s * 1e3, w.modelled_s * 1e3,
                 w.measured_s / w.modelled_s, 100 * w.memory_bound_share);
  }
}

} // namespace

void add_workload_kernels_command(CLI::App& workload)
{
  auto options = std::make_shared<KernelsOptions>();
  CLI::App* command = workload.add_subcommand(
      "kernels", "Put kernel times measured on a GPU (calibration/measured/*.yaml) beside the kernel time model: by "
                 "op and pass, the fixed time and bandwidth of memory-bound kernels, per workload and micro-batch");
  command->add_option("timings", options->timings_path, "Kernel timings YAML (calibration/measured/README.md)")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("--accelerator", options->accelerator, "Catalog accelerator the timings were taken on")
      ->required();
  command->add_option("--calibration", options->calibration_path, "Calibration file (default: the embedded one)")
      ->check(CLI::ExistingFile);
  command->add_option("--benchmark", options->benchmark,
                      "Benchmark whose efficiencies price the kernels of no workload (grid, stream, launch)");
  command->add_flag("--list", options->list, "Print every kernel");
  add_catalog_option(*command);
  command->callback([options] { kernels(*options); });
}

} // namespace gpuscale::app
