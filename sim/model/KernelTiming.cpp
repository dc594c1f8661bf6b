#include "sim/model/KernelTiming.hpp"

#include "sim/model/EnumNames.hpp"

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

} // namespace

std::string to_string(KernelPass pass) { return name_of(kPassNames, pass); }
std::optional<KernelPass> parse_kernel_pass(std::string_view name) { return value_of(kPassNames, name); }
std::string to_string(KernelSource source) { return name_of(kSourceNames, source); }
std::optional<KernelSource> parse_kernel_source(std::string_view name) { return value_of(kSourceNames, name); }
std::string known_kernel_passes() { return list_of(kPassNames); }
std::string known_kernel_sources() { return list_of(kSourceNames); }

} // namespace gpuscale::model
