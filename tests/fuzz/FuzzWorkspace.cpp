#include "tests/fuzz/FuzzWorkspace.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace gpuscale::fuzz {
namespace {

namespace fs = std::filesystem;

/// Links every entry of the repository's `folder` into the workspace's.
void mirror(const fs::path& workspace, const std::string& folder)
{
  fs::create_directories(workspace / folder);
  for (const auto& entry : fs::directory_iterator(fs::path(GPUSCALE_SOURCE_DIR) / folder))
    fs::create_symlink(entry.path(), workspace / folder / entry.path().filename());
}

fs::path g_workspace; // removed by the atexit handler below

void remove_workspace()
{
  std::error_code ignored;
  fs::remove_all(g_workspace, ignored);
}

const fs::path& workspace()
{
  static const fs::path made = [] {
    const fs::path base = fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    g_workspace = base / ("gpuscale-fuzz-" + std::to_string(::getpid()));
    fs::remove_all(g_workspace);
    mirror(g_workspace, "platforms");
    mirror(g_workspace, "workloads");
    fs::create_directories(g_workspace / "scenarios");
    std::atexit(remove_workspace);
    return g_workspace;
  }();
  return made;
}

} // namespace

std::string write_input(const std::uint8_t* data, std::size_t size, const std::string& folder, const std::string& name)
{
  const fs::path path = workspace() / folder / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out.flush())
    throw std::runtime_error("cannot write fuzz input " + path.string());
  return path.string();
}

} // namespace gpuscale::fuzz
