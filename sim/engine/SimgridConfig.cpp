#include "sim/engine/SimgridConfig.hpp"

#include <cstdio>

namespace gpuscale::engine {

std::vector<std::string> simgrid_config_items(const model::SimgridNetworkConfig& config)
{
  char gamma[64];
  std::snprintf(gamma, sizeof gamma, "%.0f", config.tcp_gamma_bytes);
  std::vector<std::string> items{"network/model:" + config.network_model,
                                 std::string("network/crosstraffic:") + (config.crosstraffic ? "1" : "0"),
                                 std::string("network/TCP-gamma:") + gamma};
  if (config.network_model == "CM02") {
    // CM02's defaults are already 1; stated so the record says what the run assumed.
    items.emplace_back("network/latency-factor:1");
    items.emplace_back("network/bandwidth-factor:1");
  }
  return items;
}

std::string describe_simgrid_config(const model::SimgridNetworkConfig& config)
{
  std::string text;
  for (const auto& item : simgrid_config_items(config))
    text += (text.empty() ? "" : " ") + item;
  return text;
}

} // namespace gpuscale::engine
