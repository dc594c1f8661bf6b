// gpuscale merge shards/*.h5 -o results.h5: the shards of one sweep (gpuscale sweep --shard i/N) into
// one results file, rows in point order. Refuses files of different sweeps and points present twice;
// reports points no file holds.

#include "sim/app/CommandExit.hpp"
#include "sim/app/Commands.hpp"
#include "sim/app/OutputPath.hpp"
#include "sim/results/ResultsFile.hpp"
#include "sim/results/ResultsFileLock.hpp"
#include "sim/results/SweepManifest.hpp"
#include "sim/run/Version.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

namespace gpuscale::app {
namespace {

namespace fs = std::filesystem;

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string output_path;
  bool allow_missing = false;
};

/// "3, 7, 12-15" for a sorted list of indices.
std::string ranges(const std::vector<std::int64_t>& sorted)
{
  std::string text;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
      ++j;
    text += (text.empty() ? "" : ", ") +
            (j == i ? std::to_string(sorted[i]) : std::to_string(sorted[i]) + "-" + std::to_string(sorted[j]));
    i = j + 1;
  }
  return text;
}

struct Input {
  std::string path;
  results::SweepManifest manifest;
  std::vector<results::RunRecord> rows;
};

Input read_input(const std::string& path)
{
  Input input{path, {}, results::read_runs(path)};
  const auto manifests = results::read_sweep_manifests(path);
  if (manifests.size() != 1)
    throw std::invalid_argument(path + (manifests.empty() ? ": not written by gpuscale sweep (no /sweeps manifest)"
                                                          : ": holds " + std::to_string(manifests.size()) +
                                                                " sweeps; merge takes one sweep's shards"));
  input.manifest = manifests.front();
  const auto expected_vector = input.manifest.expected_points();
  const std::set<std::int64_t> expected(expected_vector.begin(), expected_vector.end());
  for (const auto& row : input.rows) {
    if (row.sweep_id != input.manifest.sweep_id)
      throw std::invalid_argument(path + ": row " + std::to_string(row.run_id) + " is not from sweep " +
                                  input.manifest.sweep_id + " (sweep_id '" + row.sweep_id + "')");
    if (!expected.contains(row.sweep_point))
      throw std::invalid_argument(path + ": row " + std::to_string(row.run_id) + " holds point " +
                                  std::to_string(row.sweep_point) + ", which is not in shard " +
                                  input.manifest.shard_label());
  }
  return input;
}

/// Every input is a shard of the same sweep, split the same way.
void check_same_sweep(const std::vector<Input>& inputs)
{
  const auto& first = inputs.front().manifest;
  for (const auto& input : inputs) {
    const auto& m = input.manifest;
    if (m.sweep_id != first.sweep_id)
      throw std::invalid_argument("the files come from different sweeps: " + inputs.front().path + " is sweep " +
                                  first.sweep_id + ", " + input.path + " is sweep " + m.sweep_id);
    if (m.spec_text != first.spec_text || m.points_total != first.points_total ||
        m.runnable_points != first.runnable_points)
      throw std::invalid_argument(input.path + " and " + inputs.front().path + " have the same sweep id but different "
                                  "sweep definitions (corrupt file?)");
    if (m.shard_count != first.shard_count)
      throw std::invalid_argument("the files split the sweep differently: " + inputs.front().path + " is shard " +
                                  first.shard_label() + ", " + input.path + " is shard " + m.shard_label());
  }
}

void merge(const MergeOptions& given)
{
  MergeOptions options = given;
  options.output_path = checked_output_path(given.output_path, given.inputs);
  std::vector<Input> inputs;
  for (const auto& path : options.inputs)
    inputs.push_back(read_input(path));
  check_same_sweep(inputs);

  std::map<std::int64_t, std::pair<const Input*, const results::RunRecord*>> by_point;
  std::map<int, const Input*> shard_files;
  for (const auto& input : inputs) {
    if (auto [it, fresh] = shard_files.emplace(input.manifest.shard_index, &input); !fresh && input.manifest.shard_count > 1)
      fmt::print(stderr, "note: shard {} given twice ({} and {})\n", input.manifest.shard_label(), it->second->path,
                 input.path);
    for (const auto& row : input.rows) {
      auto [it, fresh] = by_point.emplace(row.sweep_point, std::make_pair(&input, &row));
      if (!fresh)
        throw std::invalid_argument("point " + std::to_string(row.sweep_point) + " is in both " + it->second.first->path +
                                    " and " + input.path + "; merge refuses overlapping files");
    }
  }

  const auto& first = inputs.front().manifest;
  std::map<int, std::vector<std::int64_t>> missing_by_shard;
  std::size_t missing = 0;
  for (std::size_t k = 0; k < first.runnable_points.size(); ++k)
    if (!by_point.contains(first.runnable_points[k])) {
      missing_by_shard[static_cast<int>(k % static_cast<std::size_t>(first.shard_count))].push_back(first.runnable_points[k]);
      ++missing;
    }

  // Written next to the target and renamed: a failed merge never leaves half a file.
  const fs::path target(options.output_path);
  const std::string temporary =
      (target.parent_path() / ("." + target.filename().string() + ".merge." + std::to_string(::getpid()))).string();
  // The output's folder stays locked until the rename, so no append to the old output slips in between.
  const results::ResultsFileLock lock(options.output_path);
  try {
    results::SweepManifest merged = first;
    merged.shard_index = 0;
    merged.shard_count = 1;
    results::write_sweep_manifest(temporary, merged, run::gpuscale_version(), lock);
    std::vector<results::RunToWrite> rows;
    for (const auto& [point, source] : by_point)
      rows.push_back({*source.second, results::read_scenario_text(source.first->path, source.second->run_id)});
    results::append_runs(temporary, std::move(rows), run::gpuscale_version(), lock);
    std::error_code renamed;
    fs::rename(temporary, target, renamed);
    if (renamed)
      throw results::ResultsFileError(options.output_path + ": cannot replace the file: " + renamed.message());
  } catch (...) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  fmt::print("merged     {} rows of sweep {} from {} file(s) into {} ({} runnable points in the sweep)\n",
             by_point.size(), first.sweep_id, inputs.size(), options.output_path, first.runnable_points.size());
  if (missing == 0)
    return;
  fmt::print(stderr, "missing    {} point(s) no file holds:\n", missing);
  for (const auto& [shard, points] : missing_by_shard) {
    const std::string label = first.shard_count == 1 ? "" : fmt::format("shard {}/{}", shard, first.shard_count);
    fmt::print(stderr, "  {}{}{}: {}\n", label, label.empty() ? "" : " ",
               shard_files.contains(shard) ? "" : "(no file given)", ranges(points));
  }
  if (!options.allow_missing)
    throw CommandExit(1, fmt::format("{} point(s) missing (listed above); run the shards again with --resume and "
                                     "merge again, or pass --allow-missing",
                                     missing));
}

} // namespace

void add_merge_command(CLI::App& app)
{
  auto options = std::make_shared<MergeOptions>();
  CLI::App* command =
      app.add_subcommand("merge", "Combine the shard files of one sweep (gpuscale sweep --shard i/N) into one results file");
  command->add_option("shards", options->inputs, "Shard results files")->required()->check(CLI::ExistingFile);
  command->add_option("-o,--output", options->output_path, "Merged results file (replaced if it exists)")->required();
  command->add_flag("--allow-missing", options->allow_missing,
                    "Exit with status 0 even if some points of the sweep are in no file");
  command->callback([options] { merge(*options); });
}

} // namespace gpuscale::app
