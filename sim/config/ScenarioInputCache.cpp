#include "sim/config/ScenarioInputCache.hpp"

#include "sim/config/CalibrationReader.hpp"
#include "sim/config/ConvergenceReader.hpp"
#include "sim/config/HostInputReader.hpp"
#include "sim/config/PlatformReader.hpp"
#include "sim/config/WorkloadReader.hpp"

namespace gpuscale::config {

template <class T, class Read>
std::shared_ptr<const T> ScenarioInputCache::get(std::map<std::string, Entry<T>>& entries, const std::string& path,
                                                 Read read)
{
  auto it = entries.find(path);
  if (it == entries.end()) {
    Entry<T> entry;
    try {
      entry.value = std::make_shared<const T>(read(path));
    } catch (...) {
      entry.error = std::current_exception();
    }
    it = entries.emplace(path, std::move(entry)).first;
  }
  if (it->second.error)
    std::rethrow_exception(it->second.error);
  return it->second.value;
}

std::shared_ptr<const model::Platform> ScenarioInputCache::platform(const std::string& path)
{
  return get(platforms_, path, read_platform);
}

std::shared_ptr<const model::WorkloadTrace> ScenarioInputCache::workload(const std::string& path)
{
  return get(workloads_, path, read_workload);
}

std::shared_ptr<const model::ConvergenceTable> ScenarioInputCache::convergence(const std::string& path)
{
  return get(convergence_, path, read_convergence);
}

std::shared_ptr<const std::vector<model::HostInputCost>> ScenarioInputCache::host_input(const std::string& path)
{
  return get(host_input_, path, read_host_input);
}

} // namespace gpuscale::config

namespace gpuscale::config {

std::shared_ptr<const model::Calibration> ScenarioInputCache::calibration(const std::string& path)
{
  return get(calibrations_, path, [](const std::string& file) { return read_calibration(file); });
}

} // namespace gpuscale::config
