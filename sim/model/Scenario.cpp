#include "sim/model/Scenario.hpp"

namespace gpuscale::model {

std::string to_string(CollectiveAlgorithm algorithm)
{
  switch (algorithm) {
    case CollectiveAlgorithm::Ring: return "ring";
    case CollectiveAlgorithm::RingFlow: return "ring_flow";
    case CollectiveAlgorithm::Hierarchical: return "hierarchical";
    case CollectiveAlgorithm::HierarchicalFlow: return "hierarchical_flow";
    case CollectiveAlgorithm::HalvingDoubling: return "halving_doubling";
    case CollectiveAlgorithm::Auto: return "auto";
  }
  return "?";
}

std::optional<CollectiveAlgorithm> parse_collective_algorithm(std::string_view name)
{
  for (auto algorithm : {CollectiveAlgorithm::Ring, CollectiveAlgorithm::RingFlow, CollectiveAlgorithm::Hierarchical,
                         CollectiveAlgorithm::HierarchicalFlow, CollectiveAlgorithm::HalvingDoubling,
                         CollectiveAlgorithm::Auto})
    if (to_string(algorithm) == name)
      return algorithm;
  return std::nullopt;
}

std::string known_collective_algorithms()
{
  return "ring, ring_flow, hierarchical, hierarchical_flow, halving_doubling, auto";
}

std::string to_string(StepExecutorKind executor)
{
  switch (executor) {
    case StepExecutorKind::Simgrid: return "simgrid";
    case StepExecutorKind::Analytical: return "analytical";
  }
  return "?";
}

std::optional<StepExecutorKind> parse_step_executor(std::string_view name)
{
  for (auto executor : {StepExecutorKind::Simgrid, StepExecutorKind::Analytical})
    if (to_string(executor) == name)
      return executor;
  return std::nullopt;
}

std::string known_step_executors()
{
  return "simgrid, analytical";
}

} // namespace gpuscale::model
