#include "sim/app/OutputPath.hpp"

#include "sim/config/ConfigError.hpp"
#include "sim/results/ResultsFile.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gpuscale::app {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(const std::string& path, const std::string& reason)
{
  throw config::ConfigError({config::Diagnostic{path, 0, 0, "", "cannot write the output: " + reason}});
}

/// True if `path` is `folder` or lies below it, compared by canonical paths (links and `..` resolved;
/// for a path that does not exist yet, its folder's).
bool inside_folder(const fs::path& path, const fs::path& folder)
{
  std::error_code error;
  const fs::path root = fs::canonical(folder, error);
  if (error)
    return false;
  const fs::path where = fs::weakly_canonical(fs::absolute(path, error), error);
  if (error)
    return false;
  auto r = root.begin();
  auto w = where.begin();
  for (; r != root.end(); ++r, ++w)
    if (w == where.end() || *r != *w)
      return false;
  return true;
}

} // namespace

std::string checked_output_path(const std::string& path, const std::vector<std::string>& inputs)
{
  std::error_code error;
  fs::path target(path);
  const fs::file_status link = fs::symlink_status(target, error);
  if (fs::is_symlink(link)) {
    std::error_code resolved;
    const fs::path canonical = fs::canonical(target, resolved);
    if (resolved.value() == ELOOP)
      refuse(path, "it is a loop of symbolic links");
    if (resolved) {
      std::error_code ignored;
      refuse(path, "it is a symbolic link to '" + fs::read_symlink(target, ignored).string() + "', which does not exist");
    }
    target = canonical;
  }
  const fs::file_status status = fs::status(target, error);
  const bool exists = fs::exists(status);
  if (fs::is_directory(status))
    refuse(path, "it is a directory");
  if (exists && !fs::is_regular_file(status))
    refuse(path, "not a regular file (a device, pipe or socket)");
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const fs::file_status folder_status = fs::status(folder, error);
  if (!fs::exists(folder_status))
    refuse(path, "the folder '" + folder.string() + "' does not exist");
  if (!fs::is_directory(folder_status))
    refuse(path, "'" + folder.string() + "' is not a folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    refuse(path, "cannot create files in the folder '" + folder.string() + "' (" + std::strerror(errno) + ")");
  if (exists && ::access(target.c_str(), W_OK) != 0)
    refuse(path, "the file cannot be changed (" + std::string(std::strerror(errno)) + ")");
  for (const auto& input : inputs) {
    if (input.empty())
      continue;
    std::error_code ignored;
    if (fs::is_directory(input, ignored)) {
      if (inside_folder(target, input))
        refuse(path, "it is inside the folder " + input + ", which this command reads");
    } else if (exists && fs::equivalent(input, target, ignored))
      refuse(path, "it is the input " + input);
  }
  return target.string();
}

std::string checked_output_folder(const std::string& path, const std::vector<std::string>& inputs)
{
  std::error_code error;
  fs::path existing = fs::absolute(path, error).lexically_normal();
  if (!existing.has_filename()) // "/a/b/" from "a/b/": its last component is the folder
    existing = existing.parent_path();
  const bool exists = fs::exists(fs::status(existing, error));
  if (exists && !fs::is_directory(fs::status(existing, error)))
    refuse(path, "it is not a folder");
  while (!fs::exists(fs::status(existing, error)) && existing.has_relative_path())
    existing = existing.parent_path();
  if (!fs::is_directory(fs::status(existing, error)))
    refuse(path, "'" + existing.string() + "' is not a folder");
  if (::access(existing.c_str(), W_OK | X_OK) != 0)
    refuse(path, "cannot create files in the folder '" + existing.string() + "' (" + std::strerror(errno) + ")");
  if (exists)
    for (const auto& input : inputs)
      if (!input.empty() && inside_folder(input, path))
        refuse(path, "it holds the input " + input + ", and the command replaces files in it");
  return path;
}

std::string checked_results_path(const std::string& path, const std::vector<std::string>& inputs)
{
  std::string target = checked_output_path(path, inputs);
  results::check_appendable(target);
  return target;
}

} // namespace gpuscale::app
