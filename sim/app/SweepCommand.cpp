// gpuscale sweep SWEEP.yaml -o results.h5 [-j N] [--resume] [--shard i/N] [--dry-run]

#include "sim/app/CatalogOption.hpp"
#include "sim/app/CommandExit.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/OutputPath.hpp"
#include "sim/run/Version.hpp"
#include "sim/sweep/SweepExecution.hpp"
#include "sim/sweep/SweepInputs.hpp"
#include "sim/sweep/SweepJournal.hpp"
#include "sim/app/SweepLimits.hpp"
#include "sim/app/SweepProgress.hpp"
#include "sim/sweep/SweepResultsWriter.hpp"
#include "sim/config/SweepReader.hpp"
#include "sim/results/ResultsFile.hpp"
#include "sim/results/SweepManifest.hpp"

#include <fmt/format.h>

#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

namespace gpuscale::app {
namespace {

/// The sweep's progress on the terminal: a redrawn line when stdout is one (SweepProgress), and the
/// interrupt notice.
class TerminalSweepObserver final : public sweep::SweepObserver {
public:
  explicit TerminalSweepObserver(bool interactive) : interactive_(interactive) {}
  void started(std::size_t points, double total_cost) override { progress_.emplace(points, total_cost, interactive_); }
  void discounted(double cost) override { progress_->discount(cost); }
  void progressed(std::size_t done, std::size_t failed, double cost_done) override
  {
    progress_->update(done, failed, cost_done);
  }
  void interrupted(std::size_t running) override
  {
    fmt::print("\ninterrupted: waiting for {} running simulation(s) to finish (Ctrl-C again to abandon them)\n",
               running);
  }
  void finished(std::size_t done, std::size_t failed, double cost_done) override
  {
    progress_->finish(done, failed, cost_done);
  }

private:
  bool interactive_;
  std::optional<SweepProgress> progress_;
};

namespace fs = std::filesystem;

struct SweepOptions {
  std::string sweep_path;
  std::string output_path;
  int jobs = 0; ///< 0: the CPUs this process may run on
  bool resume = false;
  std::string shard = "0/1";
  bool dry_run = false;
  bool yes = false; ///< run a sweep larger than this machine comfortably holds without asking
  std::size_t flush_rows = 32;
  double flush_seconds = 2.0;
};

struct Shard {
  int index = 0;
  int count = 1;
};

Shard parse_shard(const std::string& text)
{
  const auto slash = text.find('/');
  Shard shard;
  try {
    std::size_t used_index = 0, used_count = 0;
    if (slash == std::string::npos)
      throw std::invalid_argument("no slash");
    shard.index = std::stoi(text.substr(0, slash), &used_index);
    shard.count = std::stoi(text.substr(slash + 1), &used_count);
    if (used_index != slash || used_count != text.size() - slash - 1)
      throw std::invalid_argument("trailing characters");
  } catch (const std::exception&) {
    throw std::invalid_argument("--shard expects i/N with 0 <= i < N (e.g. 0/4), got '" + text + "'");
  }
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw std::invalid_argument("--shard expects i/N with 0 <= i < N (e.g. 0/4), got '" + text + "'");
  return shard;
}

int available_cpus()
{
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

std::string describe_point(const model::SweepPoint& point)
{
  const auto& s = point.scenario;
  return fmt::format("{} {} gpus={} global_batch={} micro_batch={} zero={} collective={}", point.platform().name,
                     point.workload().name, s.gpus, s.global_batch_size, s.micro_batch_size, s.zero_stage,
                     model::to_string(s.collective));
}

void print_plan(const model::SweepSpec& spec, const Shard& shard, std::size_t in_shard)
{
  std::string axes;
  for (const auto& axis : spec.axes)
    axes += (axes.empty() ? "" : ", ") + axis;
  fmt::print("sweep      {} (id {}) from {}\n", spec.name, spec.sweep_id, spec.path);
  fmt::print("points     {} in the product{}; {} skipped, {} to simulate\n", spec.points_total,
             axes.empty() ? "" : " of " + axes, spec.skipped.size(), spec.points.size());
  if (!spec.skipped.empty()) {
    std::map<model::SkipReason, std::size_t> by_reason;
    for (const auto& skipped : spec.skipped)
      ++by_reason[skipped.reason];
    std::string text;
    for (const auto& [reason, count] : by_reason)
      text += (text.empty() ? "" : "; ") + fmt::format("{} {}", count, model::to_string(reason));
    fmt::print("skipped    {} (skip_invalid; --dry-run lists them)\n", text);
  }
  if (shard.count > 1)
    fmt::print("shard      {}/{}: {} points\n", shard.index, shard.count, in_shard);
}

void print_dry_run(const model::SweepSpec& spec, const std::vector<const model::SweepPoint*>& selected)
{
  for (const auto* point : selected)
    fmt::print("point {:>6}  {}\n", point->index, describe_point(*point));
  for (const auto& skipped : spec.skipped)
    fmt::print("skip  {:>6}  {}: {}\n", skipped.index, model::to_string(skipped.reason), skipped.detail);
}

std::string describe_shard(const results::SweepManifest& manifest)
{
  return manifest.shard_count == 1 ? "all points" : "shard " + manifest.shard_label();
}

/// Checks the output against this sweep, moves rows a crashed run left in the journal into it, and
/// returns the points it already holds.
std::set<std::int64_t> prepare_output(const SweepOptions& options, const results::SweepManifest& manifest,
                                      bool journal_existed, sweep::SweepJournal& journal, std::size_t& recovered)
{
  std::set<std::int64_t> done;
  const auto expected_vector = manifest.expected_points();
  const std::set<std::int64_t> expected(expected_vector.begin(), expected_vector.end());
  bool has_manifest = false;
  if (fs::exists(options.output_path)) {
    for (const auto& existing : results::read_sweep_manifests(options.output_path))
      if (existing.sweep_id == manifest.sweep_id) {
        has_manifest = true;
        if (existing.shard_index != manifest.shard_index || existing.shard_count != manifest.shard_count)
          throw std::invalid_argument(options.output_path + " holds " + describe_shard(existing) +
                                      " of this sweep, not " + describe_shard(manifest) +
                                      ": write each shard to its own file and merge them");
        if (options.resume)
          sweep::check_sweep_inputs_unchanged(existing, manifest.inputs, options.output_path);
      }
    for (const auto& row : results::read_runs(options.output_path))
      if (row.sweep_id == manifest.sweep_id)
        done.insert(row.sweep_point);
    if ((has_manifest || !done.empty()) && !options.resume)
      throw std::invalid_argument(options.output_path + " already holds " + std::to_string(done.size()) +
                                  " rows of this sweep (id " + manifest.sweep_id +
                                  "): continue it with --resume, or write to another file");
  }
  if (journal_existed && !options.resume)
    throw std::invalid_argument("found " + journal.path() + " from an interrupted sweep: continue it with --resume");
  if (!has_manifest)
    results::write_sweep_manifest(options.output_path, manifest, run::gpuscale_version());
  std::vector<results::RunToWrite> rescued;
  for (const auto& run : journal.recovered())
    if (expected.contains(run.record.sweep_point) && done.insert(run.record.sweep_point).second)
      rescued.push_back(run);
  if (!rescued.empty())
    results::append_runs(options.output_path, rescued, run::gpuscale_version());
  journal.clear();
  recovered = rescued.size();
  return done;
}

void report_failures(const sweep::SweepExecutionReport& report, const std::map<std::int64_t, const model::SweepPoint*>& points)
{
  if (report.failed.empty())
    return;
  std::fflush(stdout);
  fmt::print(stderr, "failed     {} point(s), not written (--resume retries them):\n", report.failed.size());
  for (const auto& failure : report.failed)
    fmt::print(stderr, "  point {} ({}): {}\n", failure.index, describe_point(*points.at(failure.index)),
               failure.message);
}

void sweep(const SweepOptions& given)
{
  SweepOptions options = given;
  const Shard shard = parse_shard(options.shard);
  if (options.jobs < 0)
    throw std::invalid_argument("-j expects a positive number of processes");
  if (options.flush_rows < 1 || options.flush_seconds < 0)
    throw std::invalid_argument("--flush-rows must be at least 1 and --flush-seconds not negative");
  confirm_sweep_size(options.sweep_path, options.output_path, options.yes);
  const model::SweepSpec spec = config::read_sweep(options.sweep_path);
  std::vector<const model::SweepPoint*> selected;
  for (std::size_t k = 0; k < spec.points.size(); ++k)
    if (model::shard_of_position(k, shard.count) == shard.index)
      selected.push_back(&spec.points[k]);
  print_plan(spec, shard, selected.size());
  if (options.dry_run) {
    print_dry_run(spec, selected);
    return;
  }
  if (options.output_path.empty())
    throw std::invalid_argument("sweep: -o/--output is required (unless --dry-run)");
  std::vector<std::string> inputs = sweep::sweep_input_files(spec);
  inputs.push_back(options.sweep_path);
  options.output_path = checked_output_path(given.output_path, inputs);

  results::SweepManifest manifest{spec.sweep_id, spec.path, spec.text, spec.points_total, spec.runnable_indices(),
                                  shard.index, shard.count, sweep::hash_sweep_inputs(spec)};
  const bool journal_existed = fs::exists(sweep::SweepJournal::path_for(options.output_path));
  sweep::SweepJournal journal(options.output_path, spec.sweep_id);
  std::size_t recovered = 0;
  std::set<std::int64_t> done;
  try {
    done = prepare_output(options, manifest, journal_existed, journal, recovered);
  } catch (...) {
    if (!journal_existed)
      journal.remove(); // a refused output leaves no journal behind
    throw;
  }
  std::vector<const model::SweepPoint*> todo;
  std::map<std::int64_t, const model::SweepPoint*> by_index;
  for (const auto* point : selected) {
    by_index[point->index] = point;
    if (!done.contains(point->index))
      todo.push_back(point);
  }
  const int workers = options.jobs > 0 ? options.jobs : available_cpus();
  fmt::print("output     {}: {} point(s) already done{}, {} to run with {} process(es)\n", options.output_path,
             selected.size() - todo.size(),
             recovered > 0 ? fmt::format(" ({} recovered from the journal)", recovered) : "", todo.size(), workers);

  sweep::SweepResultsWriter writer(options.output_path, journal,
                            {options.flush_rows, std::chrono::milliseconds(static_cast<long long>(1000 * options.flush_seconds))},
                            run::gpuscale_version());
  TerminalSweepObserver observer(::isatty(STDOUT_FILENO) == 1);
  const sweep::SweepExecutionReport report = sweep::execute_sweep(todo, spec.sweep_id, workers, writer, observer);
  const double rate = report.elapsed_s > 0 ? static_cast<double>(report.finished + report.failed.size()) / report.elapsed_s : 0;
  fmt::print("done       {} simulation(s) in {:.2f} s ({:.1f} per second with {} process(es)): {} ok, {} infeasible; "
             "{} append(s) to {}\n",
             report.finished + report.failed.size(), report.elapsed_s, rate, workers, report.ok, report.infeasible,
             writer.appends(), options.output_path);
  report_failures(report, by_index);
  const std::size_t complete = selected.size() - todo.size() + report.finished;
  std::fflush(stdout); // the summary before main()'s message on stderr
  journal.remove();     // every finished row is in the results file now
  if (report.interrupted) // 128 + the signal, as a shell reports a process the signal killed: 130, 143, 129
    throw CommandExit(128 + report.stopped_by,
                      fmt::format("interrupted: {} of {} points are in {}; continue with: gpuscale sweep {} -o {}{} "
                                  "--resume",
                                  complete, selected.size(), options.output_path, options.sweep_path,
                                  options.output_path, shard.count > 1 ? " --shard " + options.shard : ""));
  if (!report.failed.empty())
    throw CommandExit(1, fmt::format("{} of {} points failed (listed above); the other {} are in {}",
                                     report.failed.size(), selected.size(), complete, options.output_path));
}

} // namespace

void add_sweep_command(CLI::App& app)
{
  auto options = std::make_shared<SweepOptions>();
  CLI::App* command = app.add_subcommand(
      "sweep", "Simulate every point of a sweep file (one process per simulation, N at a time) into a results file");
  command->add_option("sweep", options->sweep_path, "Sweep YAML file (scenario: and sweep: blocks)")->required();
  command->add_option("-o,--output", options->output_path, "HDF5 results file (created, or continued with --resume)")
      ->option_text("TEXT REQUIRED (unless --dry-run)");
  command->add_option("-j,--jobs", options->jobs, "Simulations run at once (default: the CPUs available)");
  command->add_flag("--resume", options->resume,
                    "Continue an interrupted sweep: keep the rows already written, run only the missing points");
  command->add_option("--shard", options->shard,
                      "Run only shard i of N (0-based, i/N): every N-th runnable point, for Slurm job arrays")
      ->default_str("0/1");
  command->add_flag("--dry-run", options->dry_run, "List the points (and skipped combinations) without running them");
  command->add_flag("-y,--yes", options->yes,
                    "Start a sweep past the size limits (over 100000 points, or more memory or disk than is free) "
                    "without asking");
  command->add_option("--flush-rows", options->flush_rows, "Append to the results file once this many rows wait")
      ->default_str("32");
  command->add_option("--flush-seconds", options->flush_seconds,
                      "... or once the oldest waiting row is this old (rows wait in <output>.journal meanwhile)")
      ->default_str("2");
  add_catalog_option(*command);
  command->callback([options] { sweep(*options); });
}

} // namespace gpuscale::app
