#include "sim/config/MlperfRepositoryReader.hpp"

#include "sim/config/ConfigError.hpp"
#include "sim/config/MlperfLogReader.hpp"
#include "sim/config/MlperfScalingReader.hpp"
#include "sim/config/MlperfSystemReader.hpp"
#include "sim/model/Benchmark.hpp"
#include "sim/model/MlperfScore.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

namespace gpuscale::config {
namespace {

namespace fs = std::filesystem;

/// Why a symbolic link cannot be followed: a loop, or a target that does not exist.
std::string describe_link_problem(const fs::path& link)
{
  std::error_code error;
  (void)fs::status(link, error);
  if (error == std::errc::too_many_symbolic_link_levels)
    return "a loop of symbolic links";
  return "a symbolic link whose target cannot be read (" + error.message() + ")";
}

/// The folders (or regular files) in `dir`, sorted. What cannot be read is reported in `problems` and
/// skipped, never silently dropped: an unreadable folder, an entry whose type cannot be known (a loop
/// of symbolic links, a dangling link), a file that cannot be opened.
std::vector<fs::path> sorted_children(const fs::path& dir, bool directories, std::vector<std::string>& problems)
{
  std::vector<fs::path> children;
  std::error_code error;
  fs::directory_iterator it(dir, error);
  for (const fs::directory_iterator end; !error && it != end; it.increment(error)) {
    std::error_code type_error;
    const fs::file_status status = it->status(type_error);
    if (type_error) {
      if (fs::is_symlink(it->symlink_status(type_error)))
        problems.push_back(it->path().string() + ": " + describe_link_problem(it->path()) + "; skipped");
      continue;
    }
    if (directories ? fs::is_directory(status) : fs::is_regular_file(status))
      children.push_back(it->path());
  }
  if (error)
    problems.push_back(dir.string() + ": cannot list the folder (" + error.message() + "); its contents are skipped");
  std::sort(children.begin(), children.end());
  return children;
}

bool is_result_file(const fs::path& path)
{
  const std::string name = path.filename().string();
  return name.starts_with("result_") && name.ends_with(".txt");
}

/// One system's benchmark folders: reads each folder's logs into an entry.
void read_system_results(const fs::path& system_dir, const fs::path& system_json, const std::string& round,
                         const std::string& submitter, const std::string& system, MlperfImport& out)
{
  std::vector<fs::path> benchmark_dirs = sorted_children(system_dir, true, out.problems);
  if (benchmark_dirs.empty())
    return;
  model::MlperfSystem description;
  bool have_description = false;
  try {
    description = read_mlperf_system(system_json.string());
    have_description = true;
  } catch (const ConfigError& e) {
    out.problems.push_back(std::string(e.what()) + " (entries of this system skipped)");
  }
  for (const auto& dir : benchmark_dirs) {
    const auto benchmark = model::parse_benchmark(dir.filename().string());
    if (!benchmark) {
      ++out.skipped_benchmark_folders;
      continue;
    }
    if (!have_description)
      continue;
    model::MlperfEntry entry;
    entry.round = round;
    entry.submitter = submitter;
    entry.system = system;
    entry.benchmark = *benchmark;
    entry.description = description;
    for (const auto& file : sorted_children(dir, false, out.problems))
      if (is_result_file(file))
        entry.runs.push_back(read_mlperf_log(file.string(), model::to_string(*benchmark)));
    if (entry.runs.empty())
      continue;
    mark_inconsistent_runs(entry);
    for (const auto& run : entry.runs)
      if (!run.valid())
        out.problems.push_back(run.problem + " [" + to_string(run.status) + ": counted as the slowest run, not averaged]");
    model::summarise_entry(entry);
    if (const fs::path scaling = dir / "scaling.json"; fs::is_regular_file(scaling)) {
      try {
        entry.rcp_scaling_factor = read_mlperf_scaling_json(scaling.string());
        entry.rcp_scaling_source = scaling.string();
      } catch (const ConfigError& e) {
        out.problems.push_back(std::string(e.what()) + " (score left unscaled)");
      }
    }
    if (!entry.score_s)
      out.problems.push_back(dir.string() + ": no score (" + std::to_string(entry.runs.size() - entry.n_converged) +
                             " invalid of " + std::to_string(entry.runs.size()) + " runs)");
    out.entries.push_back(std::move(entry));
  }
}

/// The shared layout's scores table carries the factors of the scaling.json files it did not copy.
void apply_scores_table_scaling(const fs::path& table, MlperfImport& out)
{
  std::map<std::string, double> factors;
  try {
    factors = read_scores_table_scaling(table.string());
  } catch (const ConfigError& e) {
    out.problems.push_back(std::string(e.what()) + " (scores left unscaled)");
    return;
  }
  for (auto& entry : out.entries) {
    if (!entry.rcp_scaling_source.empty())
      continue; // the entry's own scaling.json
    const auto it = factors.find(entry.key());
    if (it != factors.end()) {
      entry.rcp_scaling_factor = it->second;
      entry.rcp_scaling_source = table.string();
    }
  }
}

void read_shared_layout(const fs::path& dir, MlperfImport& out)
{
  for (const auto& round_dir : sorted_children(dir / "results", true, out.problems)) {
    const std::string round = round_dir.filename().string();
    for (const auto& system_dir : sorted_children(round_dir, true, out.problems)) {
      const std::string folder = system_dir.filename().string();
      const auto split = folder.find("__");
      if (split == std::string::npos) {
        out.problems.push_back(system_dir.string() + ": expected a folder named <submitter>__<system>; skipped");
        continue;
      }
      read_system_results(system_dir, dir / "systems" / round / (folder + ".json"), round, folder.substr(0, split),
                          folder.substr(split + 2), out);
    }
  }
  if (const fs::path table = dir / "scores_calibration.csv"; fs::is_regular_file(table))
    apply_scores_table_scaling(table, out);
}

std::string round_of(const fs::path& dir)
{
  const std::string name = fs::absolute(dir).lexically_normal().filename().string();
  std::smatch match;
  static const std::regex version(R"(v?(\d+\.\d+))");
  if (std::regex_search(name, match, version))
    return "v" + match[1].str();
  return name;
}

void read_upstream_layout(const fs::path& dir, MlperfImport& out)
{
  const std::string round = round_of(dir);
  for (const auto& submitter_dir : sorted_children(dir, true, out.problems)) {
    if (!fs::is_directory(submitter_dir / "results") || !fs::is_directory(submitter_dir / "systems"))
      continue;
    const std::string submitter = submitter_dir.filename().string();
    for (const auto& system_dir : sorted_children(submitter_dir / "results", true, out.problems)) {
      const std::string system = system_dir.filename().string();
      read_system_results(system_dir, submitter_dir / "systems" / (system + ".json"), round, submitter, system, out);
    }
  }
}

bool has_upstream_submitters(const fs::path& dir)
{
  std::vector<std::string> problems; // reported when the layout is read
  for (const auto& child : sorted_children(dir, true, problems))
    if (fs::is_directory(child / "results") && fs::is_directory(child / "systems"))
      return true;
  return false;
}

} // namespace

void mark_inconsistent_runs(model::MlperfEntry& entry)
{
  std::map<std::string, int> votes;
  for (const auto& run : entry.runs)
    ++votes[run.submission_org];
  const auto majority = std::max_element(votes.begin(), votes.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
  if (majority == votes.end() || 2 * majority->second <= static_cast<int>(entry.runs.size()))
    return;
  for (auto& run : entry.runs)
    if (run.submission_org != majority->first && run.status == model::MlperfRunStatus::Success) {
      run.status = model::MlperfRunStatus::Inconsistent;
      run.problem = run.file + ": submission_org '" + run.submission_org + "' differs from the '" + majority->first +
                    "' of the entry's other runs (corrupted log header)";
    }
}

MlperfImport read_mlperf_repository(const std::string& dir)
{
  const fs::path root(dir);
  MlperfImport out;
  if (fs::is_directory(root / "results") && fs::is_directory(root / "systems"))
    read_shared_layout(root, out);
  else if (has_upstream_submitters(root))
    read_upstream_layout(root, out);
  else
    throw ConfigError({{dir, 0, 0, "",
                        "not an MLPerf Training results folder: expected results/<round>/<submitter>__<system>/ and "
                        "systems/<round>/, or <submitter>/results/ and <submitter>/systems/"}});
  std::sort(out.entries.begin(), out.entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.round, a.submitter, a.system, a.benchmark) < std::tie(b.round, b.submitter, b.system, b.benchmark);
  });
  return out;
}

} // namespace gpuscale::config
