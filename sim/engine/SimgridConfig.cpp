#include "sim/engine/SimgridConfig.hpp"

#include <cstdio>

#ifdef GPUSCALE_SANITIZE
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>
#endif

namespace gpuscale::engine {

#ifdef GPUSCALE_SANITIZE
namespace {
// SimGrid picks its context factory when the Engine is constructed, so the item below, applied after
// that, only records the choice: the factory itself is set here, before main() (measured on 3.32: set
// after construction it is ignored and actors still switch stacks the raw way, which ASan cannot follow).
const bool g_thread_contexts = [] {
  xbt_log_control_set("xbt_cfg.thres:warning"); // no "Configuration change" line on every run
  simgrid::s4u::Engine::set_config("contexts/factory:thread");
  return true;
}();
} // namespace
#endif

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
#ifdef GPUSCALE_SANITIZE
  // AddressSanitizer cannot follow SimGrid's default (raw) context switching: actors run on threads
  // in sanitizer builds (SIMGRID-NOTES.md; set before main() above, recorded here).
  items.emplace_back("contexts/factory:thread");
#endif
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
