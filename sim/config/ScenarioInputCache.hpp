#pragma once
/// The files scenarios name (platform, workload, convergence table, host pipeline costs, network
/// calibration), each read
/// once and shared: every point of a sweep names the same few files.

#include "sim/model/Calibration.hpp"
#include "sim/model/ConvergenceTable.hpp"
#include "sim/model/HostInputModel.hpp"
#include "sim/model/Platform.hpp"
#include "sim/model/WorkloadTrace.hpp"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpuscale::config {

class ScenarioInputCache {
public:
  /// Each reads `path` on first use and throws ConfigError (again on every later use) if it is bad.
  std::shared_ptr<const model::Platform> platform(const std::string& path);
  std::shared_ptr<const model::WorkloadTrace> workload(const std::string& path);
  std::shared_ptr<const model::ConvergenceTable> convergence(const std::string& path);
  std::shared_ptr<const std::vector<model::HostInputCost>> host_input(const std::string& path);
  std::shared_ptr<const model::Calibration> calibration(const std::string& path);

private:
  template <class T> struct Entry {
    std::shared_ptr<const T> value;
    std::exception_ptr error;
  };
  template <class T, class Read>
  static std::shared_ptr<const T> get(std::map<std::string, Entry<T>>& entries, const std::string& path, Read read);

  std::map<std::string, Entry<model::Platform>> platforms_;
  std::map<std::string, Entry<model::WorkloadTrace>> workloads_;
  std::map<std::string, Entry<model::ConvergenceTable>> convergence_;
  std::map<std::string, Entry<std::vector<model::HostInputCost>>> host_input_;
  std::map<std::string, Entry<model::Calibration>> calibrations_;
};

} // namespace gpuscale::config
