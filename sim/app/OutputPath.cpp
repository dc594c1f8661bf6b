#include "sim/app/OutputPath.hpp"

#include "sim/config/ConfigError.hpp"

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
  if (exists)
    for (const auto& input : inputs) {
      std::error_code ignored;
      if (fs::equivalent(input, target, ignored))
        refuse(path, "it is the input " + input);
    }
  return target.string();
}

} // namespace gpuscale::app
