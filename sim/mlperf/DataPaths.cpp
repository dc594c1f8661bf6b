#include "sim/mlperf/DataPaths.hpp"

#include "sim/model/BenchmarkName.hpp"

#include <stdexcept>

namespace gpuscale::mlperf {

std::string data_dir()
{
  return GPUSCALE_SOURCE_DIR;
}

std::string catalog_path()
{
  return data_dir() + "/calibration/catalog.yaml";
}

std::string workload_path(const std::string& benchmark)
{
  if (const auto name = model::workload_name(benchmark))
    return data_dir() + "/workloads/" + *name + ".yaml";
  throw std::invalid_argument("no workload trace for benchmark '" + benchmark + "' (known: " +
                              model::known_benchmark_names() + ")");
}

} // namespace gpuscale::mlperf
