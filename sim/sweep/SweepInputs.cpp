#include "sim/sweep/SweepInputs.hpp"

#include "sim/config/ScenarioInputFiles.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace gpuscale::sweep {
namespace {

namespace fs = std::filesystem;

/// The same FNV-1a 64 as sweep ids: it detects an edited file, it does not resist a forged one.
std::string content_hash(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "missing";
  std::ostringstream content;
  content << in.rdbuf();
  return model::sweep_id_of(content.str());
}

std::string relative_to(const std::string& path, const fs::path& folder)
{
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  const fs::path relative = absolute.lexically_normal().lexically_relative(folder);
  return relative.empty() ? absolute.lexically_normal().string() : relative.string();
}

} // namespace

std::vector<std::string> sweep_input_files(const model::SweepSpec& spec)
{
  std::set<std::string> paths;
  std::set<const model::Platform*> platforms; // shared by the points that name the same file
  for (const auto& point : spec.points) {
    const bool new_platform = point.platform_file && platforms.insert(point.platform_file.get()).second;
    for (auto& file : config::scenario_input_files(point.scenario, new_platform ? point.platform_file.get() : nullptr))
      paths.insert(std::move(file));
  }
  return {paths.begin(), paths.end()};
}

std::vector<results::SweepInput> hash_sweep_inputs(const model::SweepSpec& spec)
{
  const std::vector<std::string> files = sweep_input_files(spec);
  const std::set<std::string> paths(files.begin(), files.end());
  std::error_code error;
  const fs::path parent = fs::path(spec.path).parent_path();
  fs::path folder = fs::absolute(parent.empty() ? fs::path(".") : parent, error).lexically_normal();
  if (!folder.has_filename()) // "/a/b/" from "/a/b/.": compare without the trailing separator
    folder = folder.parent_path();
  std::map<std::string, std::string> by_relative;
  for (const auto& path : paths)
    by_relative.emplace(relative_to(path, folder), content_hash(path));
  std::vector<results::SweepInput> inputs;
  for (const auto& [path, hash] : by_relative)
    inputs.push_back({path, hash});
  return inputs;
}

void check_sweep_inputs_unchanged(const results::SweepManifest& recorded, const std::vector<results::SweepInput>& now,
                                  const std::string& output)
{
  if (recorded.inputs.empty())
    return;
  std::map<std::string, std::string> current;
  for (const auto& input : now)
    current.emplace(input.path, input.hash);
  const std::string consequence = ": the rows in " + output + " were computed from the old content, and resuming would mix "
                                  "rows of both under sweep id " + recorded.sweep_id +
                                  " (restore the file, or start the sweep again into another file)";
  for (const auto& input : recorded.inputs) {
    const auto found = current.find(input.path);
    if (found == current.end())
      throw std::invalid_argument("cannot resume: the sweep no longer reads " + input.path + consequence);
    if (found->second != input.hash)
      throw std::invalid_argument("cannot resume: " + input.path + " changed since the sweep started (content hash " +
                                  input.hash + ", now " + found->second + ")" + consequence);
    current.erase(found);
  }
  if (!current.empty())
    throw std::invalid_argument("cannot resume: the sweep now also reads " + current.begin()->first + consequence);
}

} // namespace gpuscale::sweep
