#include "sim/model/Scenario.hpp"

namespace gpuscale::model {

std::string to_string(CollectiveAlgorithm algorithm)
{
  switch (algorithm) {
    case CollectiveAlgorithm::Ring: return "ring";
    case CollectiveAlgorithm::RingFlow: return "ring_flow";
    case CollectiveAlgorithm::Auto: return "auto";
  }
  return "?";
}

std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view name)
{
  for (auto algorithm : {CollectiveAlgorithm::Ring, CollectiveAlgorithm::RingFlow, CollectiveAlgorithm::Auto})
    if (to_string(algorithm) == name)
      return algorithm;
  return std::nullopt;
}

std::string known_collective_algorithms()
{
  return "ring, ring_flow, auto";
}

} // namespace gpuscale::model
