#include "sim/mlperf/DataPaths.hpp"

#include "sim/model/Benchmark.hpp"

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

std::string workload_path(model::Benchmark benchmark)
{
  return data_dir() + "/workloads/" + model::workload_name(benchmark) + ".yaml";
}

} // namespace gpuscale::mlperf
