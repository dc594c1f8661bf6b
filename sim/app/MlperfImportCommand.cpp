#include "sim/app/Commands.hpp"
#include "sim/app/OutputPath.hpp"
#include "sim/mlperf/DataPaths.hpp"
#include "sim/config/MlperfPlatformMapper.hpp"
#include "sim/config/MlperfRepositoryReader.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/config/PrintableText.hpp"
#include "sim/results/MlperfTables.hpp"
#include "sim/run/Version.hpp"
#include "sim/units/Quantity.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <memory>

namespace gpuscale::app {
namespace {

struct ImportOptions {
  std::string dir;
  std::string output_path;
  bool quiet = false;
};

results::MlperfScoreRow score_row(const model::MlperfEntry& e, const model::Platform& catalog)
{
  const auto& d = e.description;
  results::MlperfScoreRow row;
  row.round = e.round;
  row.submitter = e.submitter;
  row.system = e.system;
  row.division = d.division;
  row.status = d.status;
  row.accelerator_model = d.accelerator_model_name;
  row.accelerator_catalog = config::find_catalog_accelerator(catalog, d.accelerator_model_name, d.accelerator_memory_capacity);
  row.accelerators_total = d.accelerators_total();
  row.nodes = d.number_of_nodes;
  row.accelerators_per_node = d.accelerators_per_node;
  row.accelerator_memory = d.accelerator_memory_capacity;
  row.host_cpu = d.host_processor_model_name;
  row.host_cores_total =
      static_cast<std::int64_t>(d.host_processor_core_count) * d.host_processors_per_node * d.number_of_nodes;
  row.interconnect = d.accelerator_interconnect;
  row.host_networking = d.host_networking;
  row.framework = d.framework;
  row.benchmark = model::to_string(e.benchmark);
  row.global_batch_size = e.global_batch_size;
  row.n_runs = static_cast<std::int64_t>(e.runs.size());
  row.n_converged = e.n_converged;
  row.score_minutes = e.score_s ? units::to_minutes(*e.score_s) : NAN;
  row.rcp_scaling_factor = e.rcp_scaling_factor;
  row.score_minutes_scaled = e.score_s ? units::to_minutes(*e.published_score_s()) : NAN;
  row.median_run_minutes = units::to_minutes(e.median_run_s);
  row.mean_samples_to_converge = e.mean_samples_to_converge;
  row.mean_epochs_to_converge = e.mean_epochs_to_converge;
  row.mean_throughput_samples_per_s = e.mean_throughput_samples_per_s;
  return row;
}

results::MlperfRunRow run_row(const model::MlperfEntry& e, const model::MlperfRun& r)
{
  results::MlperfRunRow row;
  row.round = e.round;
  row.submitter = e.submitter;
  row.system = e.system;
  row.benchmark = model::to_string(e.benchmark);
  row.result_file = std::filesystem::path(r.file).filename().string();
  row.status = model::to_string(r.status);
  row.problem = r.problem;
  row.run_start_ms = r.run_start_ms;
  row.run_stop_ms = r.run_stop_ms;
  row.first_block_ms = r.first_block_ms;
  const double run_s = r.run_stop_ms > 0 ? r.run_s() : 0.0;
  row.run_minutes = units::to_minutes(run_s);
  row.global_batch_size = r.global_batch_size;
  row.seed = r.seed;
  row.samples_to_converge = r.samples_to_converge;
  row.epochs_to_converge = r.epochs_to_converge;
  row.samples_processed = r.samples_processed;
  row.throughput_samples_per_s = run_s > 0 ? r.samples_processed / run_s : 0.0;
  row.training_rate_samples_per_s = r.training_rate_samples_per_s;
  return row;
}

void run_import(const ImportOptions& options)
{
  const std::string output = checked_output_path(options.output_path, {options.dir, mlperf::catalog_path()});
  const config::MlperfImport imported = config::read_mlperf_repository(options.dir);
  const model::Platform catalog = config::read_platform(mlperf::catalog_path());
  std::vector<results::MlperfRunRow> runs;
  std::vector<results::MlperfScoreRow> scores;
  std::size_t valid = 0;
  for (const auto& entry : imported.entries) {
    scores.push_back(score_row(entry, catalog));
    for (const auto& run : entry.runs) {
      runs.push_back(run_row(entry, run));
      valid += run.valid() ? 1 : 0;
    }
  }
  results::write_mlperf_tables(output, runs, scores, run::gpuscale_version());
  if (!options.quiet)
    for (const auto& problem : imported.problems)
      fmt::print(stderr, "{}\n", config::printable(problem)); // quotes logs and folder names
  fmt::print("imported   {} entries, {} result logs ({} valid, {} reported above and not averaged in)\n",
             scores.size(), runs.size(), valid, runs.size() - valid);
  if (imported.skipped_benchmark_folders > 0)
    fmt::print("skipped    {} folders of benchmarks gpuscale has no workload for\n", imported.skipped_benchmark_folders);
  fmt::print("written    {} (/mlperf_scores, /mlperf_runs)\n", options.output_path);
}

} // namespace

void add_mlperf_command(CLI::App& app)
{
  CLI::App* mlperf = app.add_subcommand("mlperf", "MLPerf Training results: import them");
  mlperf->require_subcommand(1);
  auto options = std::make_shared<ImportOptions>();
  CLI::App* import = mlperf->add_subcommand(
      "import", "Read an MLCommons Training results folder, score every entry, write /mlperf_scores and /mlperf_runs");
  import->add_option("dir", options->dir, "Results folder (shared/mlperf layout or an upstream round repository)")
      ->required()
      ->check(CLI::ExistingDirectory);
  import->add_option("-o,--output", options->output_path, "HDF5 file to write (replaced)")->required();
  import->add_flag("-q,--quiet", options->quiet, "Do not list the invalid runs");
  import->callback([options] { run_import(*options); });
}

} // namespace gpuscale::app
