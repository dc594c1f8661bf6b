#include "sim/config/ScenarioInputFiles.hpp"

#include <filesystem>

namespace gpuscale::config {

std::vector<std::string> scenario_input_files(const model::Scenario& scenario, const model::Platform* platform)
{
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto* path : {&scenario.platform_path, &scenario.workload_path, &scenario.convergence_path,
                           &scenario.network_calibration_path})
    if (!path->empty())
      files.push_back(*path);
  if (!scenario.workload_path.empty()) {
    const fs::path host_input = fs::path(scenario.workload_path).parent_path() / "host_input" / "host_input.yaml";
    if (std::error_code error; fs::exists(host_input, error))
      files.push_back(host_input.lexically_normal().string());
  }
  if (platform)
    files.insert(files.end(), platform->source_files.begin(), platform->source_files.end());
  return files;
}

} // namespace gpuscale::config
