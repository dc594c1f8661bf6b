#include "sim/app/DataPaths.hpp"

#include <stdexcept>

namespace gpuscale::app {

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
  static const std::pair<const char*, const char*> files[] = {
      {"bert", "bert-large"}, {"llama2_70b_lora", "llama2-70b-lora"}, {"resnet", "resnet50"},
      {"retinanet", "retinanet"}, {"stable_diffusion", "stable-diffusion"}};
  for (const auto& [name, file] : files)
    if (benchmark == name)
      return data_dir() + "/workloads/" + file + ".yaml";
  throw std::invalid_argument("no workload trace for benchmark '" + benchmark +
                              "' (known: bert, llama2_70b_lora, resnet, retinanet, stable_diffusion)");
}

} // namespace gpuscale::app
