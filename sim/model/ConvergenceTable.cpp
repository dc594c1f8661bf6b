#include "sim/model/ConvergenceTable.hpp"

#include <stdexcept>

namespace gpuscale::model {

std::string to_string(ConvergenceUnit unit)
{
  return unit == ConvergenceUnit::Epochs ? "epochs" : "samples";
}

std::optional<ConvergenceUnit> parse_convergence_unit(std::string_view name)
{
  if (name == "samples")
    return ConvergenceUnit::Samples;
  if (name == "epochs")
    return ConvergenceUnit::Epochs;
  return std::nullopt;
}

std::string known_convergence_units()
{
  return "samples, epochs";
}

double ConvergenceTable::samples_per_unit() const
{
  if (unit == ConvergenceUnit::Samples)
    return 1.0;
  if (!dataset_samples || !(*dataset_samples > 0))
    throw std::invalid_argument("ConvergenceTable '" + benchmark + "': unit epochs needs a positive dataset_samples");
  return *dataset_samples;
}

ConvergenceCurve ConvergenceTable::curve() const
{
  const double scale = samples_per_unit() * samples_factor;
  std::vector<ConvergencePoint> in_samples = points;
  for (auto& point : in_samples)
    point.value *= scale;
  return ConvergenceCurve(std::move(in_samples));
}

ConvergenceModel ConvergenceTable::model() const
{
  return ConvergenceModel(curve());
}

} // namespace gpuscale::model
