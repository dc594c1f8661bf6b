#include "sim/config/HostInputReader.hpp"

#include "sim/config/MappingReader.hpp"
#include "sim/config/YamlFile.hpp"

#include <set>
#include <utility>

namespace gpuscale::config {

std::vector<model::HostInputCost> read_host_input(const std::string& path)
{
  Diagnostics diagnostics;
  std::vector<model::HostInputCost> costs;
  if (auto root = load_yaml_file(path, diagnostics)) {
    MappingReader top(*root, path, "", diagnostics);
    if (auto node = top.child("host_input", Presence::Required)) {
      MappingReader host(*node, path, "/host_input", diagnostics);
      const double reserved = host.number("reserved_cores_per_gpu", 0, 1024, Presence::Required).value_or(0);
      if (auto list = host.child("pipelines", Presence::Required);
          list && expect_sequence(*list, path, "/host_input/pipelines", diagnostics)) {
        std::set<std::pair<std::string, std::string>> seen;
        for (std::size_t i = 0; i < list->size(); ++i) {
          MappingReader entry((*list)[i], path, "/host_input/pipelines/" + std::to_string(i), diagnostics);
          model::HostInputCost cost;
          cost.benchmark = entry.identifier("benchmark", Presence::Required).value_or("");
          cost.pipeline = entry.identifier("pipeline", Presence::Required).value_or("");
          cost.core_time_per_sample_s =
              entry.positive_quantity("core_time_per_sample", units::Dimension::Seconds, Presence::Required).value_or(0);
          cost.reserved_cores_per_gpu = reserved;
          cost.basis = entry.text("basis", Presence::Required).value_or("");
          entry.finish();
          if (!cost.benchmark.empty() && !cost.pipeline.empty() && !seen.emplace(cost.benchmark, cost.pipeline).second)
            entry.error("pipeline", "duplicate pipeline '" + cost.pipeline + "' for benchmark '" + cost.benchmark + "'");
          costs.push_back(std::move(cost));
        }
      }
      host.finish();
    }
    top.finish();
  }
  diagnostics.throw_if_any();
  return costs;
}

} // namespace gpuscale::config
