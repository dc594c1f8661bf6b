#include "sim/config/SweepSize.hpp"

#include "sim/config/YamlFile.hpp"

namespace gpuscale::config {

std::optional<SweepSize> measure_sweep(const std::string& path)
{
  Diagnostics ignored; // read_sweep reports the problems of a file that cannot be measured
  const auto root = load_yaml_file(path, ignored);
  if (!root || !root->IsMap())
    return std::nullopt;
  const YAML::Node& top = *root;
  const YAML::Node scenario = top["scenario"];
  const YAML::Node sweep = top["sweep"];
  // A missing key of a const mapping is an invalid node, whose IsMap() throws: IsDefined() first.
  if (!scenario.IsDefined() || !sweep.IsDefined() || !scenario.IsMap() || !sweep.IsMap())
    return std::nullopt;
  SweepSize size;
  for (auto it = sweep.begin(); it != sweep.end(); ++it)
    if (it->second.IsSequence() && it->second.size() > 0)
      size.points *= static_cast<long double>(it->second.size());
  YAML::Emitter text;
  text << scenario;
  size.scenario_bytes = text.size();
  return size;
}

} // namespace gpuscale::config
