#include "sim/model/KernelTiming.hpp"

#include <array>

namespace gpuscale::model {
namespace {

constexpr std::array<std::pair<KernelPass, std::string_view>, 4> kPassNames{{
    {KernelPass::Forward, "forward"},
    {KernelPass::InputGradient, "input_gradient"},
    {KernelPass::WeightGradient, "weight_gradient"},
    {KernelPass::Backward, "backward"},
}};
constexpr std::array<std::pair<KernelSource, std::string_view>, 4> kSourceNames{{
    {KernelSource::Trace, "trace"},
    {KernelSource::Grid, "grid"},
    {KernelSource::Stream, "stream"},
    {KernelSource::Launch, "launch"},
}};

template <class Enum, std::size_t N>
std::string name_in(const std::array<std::pair<Enum, std::string_view>, N>& names, Enum value)
{
  for (const auto& [candidate, name] : names)
    if (candidate == value)
      return std::string(name);
  return "?";
}

template <class Enum, std::size_t N>
std::optional<Enum> value_in(const std::array<std::pair<Enum, std::string_view>, N>& names, std::string_view name)
{
  for (const auto& [value, candidate] : names)
    if (candidate == name)
      return value;
  return std::nullopt;
}

template <class Enum, std::size_t N>
std::string names_of(const std::array<std::pair<Enum, std::string_view>, N>& names)
{
  std::string text;
  for (const auto& [value, name] : names)
    text += (text.empty() ? "" : ", ") + std::string(name);
  return text;
}

} // namespace

std::string to_string(KernelPass pass) { return name_in(kPassNames, pass); }
std::optional<KernelPass> parse_kernel_pass(std::string_view name) { return value_in(kPassNames, name); }
std::string to_string(KernelSource source) { return name_in(kSourceNames, source); }
std::optional<KernelSource> parse_kernel_source(std::string_view name) { return value_in(kSourceNames, name); }
std::string known_kernel_passes() { return names_of(kPassNames); }
std::string known_kernel_sources() { return names_of(kSourceNames); }

} // namespace gpuscale::model
