#include "sim/config/KernelTimingReader.hpp"

#include "sim/config/LayerReader.hpp"
#include "sim/config/MappingReader.hpp"
#include "sim/config/YamlFile.hpp"

#include <variant>

namespace gpuscale::config {
namespace {

/// Largest micro-batch and count accepted: beyond any real step, small enough to stay exact.
constexpr long long kMaxMicroBatch = 1'000'000;
constexpr long long kMaxCount = 1'000'000'000;

void read_environment(const YAML::Node& node, const std::string& path, Diagnostics& diagnostics,
                      model::KernelTimings& out)
{
  if (!node.IsMap()) {
    report(diagnostics, path, node, "/environment", "expected a mapping of names to text");
    return;
  }
  for (const auto& entry : node) {
    if (!entry.first.IsScalar() || !entry.second.IsScalar()) {
      report(diagnostics, path, entry.first, "/environment", "expected `name: text` pairs");
      continue;
    }
    out.environment.emplace_back(entry.first.Scalar(), entry.second.Scalar());
  }
}

/// The passes a kernel of this op has in the model (ComputeCostModel.hpp).
bool pass_fits(const model::Kernel& kernel, model::KernelPass pass)
{
  using P = model::KernelPass;
  const bool product = std::holds_alternative<model::GemmShape>(kernel.shape) ||
                       std::holds_alternative<model::ConvShape>(kernel.shape);
  if (pass == P::Forward)
    return true;
  if (product)
    return (pass == P::InputGradient && kernel.backward_factor >= 1) ||
           (pass == P::WeightGradient && kernel.backward_factor == 2);
  return pass == P::Backward && kernel.backward_factor >= 1;
}

/// One timing; a kernel that does not read leaves its diagnostic, so the file is refused as a whole.
model::KernelTiming read_timing(MappingReader entry)
{
  model::KernelTiming timing;
  timing.line = entry.node().Mark().line + 1;
  if (const auto source = entry.text("source", Presence::Required)) {
    if (const auto parsed = model::parse_kernel_source(*source))
      timing.source = *parsed;
    else
      entry.error("source", "unknown source '" + *source + "' (known: " + model::known_kernel_sources() + ")");
  }
  timing.workload = entry.text("workload", Presence::Optional).value_or("");
  timing.layer = entry.text("layer", Presence::Optional).value_or("");
  if (const auto pass = entry.text("pass", Presence::Required)) {
    if (const auto parsed = model::parse_kernel_pass(*pass))
      timing.pass = *parsed;
    else
      entry.error("pass", "unknown pass '" + *pass + "' (known: " + model::known_kernel_passes() + ")");
  }
  if (const auto precision = entry.text("precision", Presence::Required)) {
    if (const auto parsed = model::parse_precision(*precision))
      timing.precision = *parsed;
    else
      entry.error("precision", "unknown precision '" + *precision + "' (known: " + model::known_precisions() + ")");
  }
  timing.micro_batch =
      static_cast<int>(entry.integer("micro_batch", 1, kMaxMicroBatch, Presence::Required).value_or(1));
  timing.count = entry.integer("count", 1, kMaxCount, Presence::Optional).value_or(1);
  timing.graph_s = entry.positive_quantity("graph_time", units::Dimension::Seconds, Presence::Required).value_or(0);
  timing.eager_s = entry.positive_quantity("eager_time", units::Dimension::Seconds, Presence::Optional);
  std::optional<model::Kernel> kernel;
  if (auto node = entry.child("kernel", Presence::Required))
    kernel = read_kernel(MappingReader(*node, entry.file(), entry.path_of("kernel"), entry.diagnostics()));
  if (kernel) {
    timing.kernel = *kernel;
    if (const auto* e = std::get_if<model::ElementwiseShape>(&kernel->shape); e && e->fused)
      entry.error("kernel", "a fused elementwise op runs inside another kernel: it has no time of its own");
    if (!pass_fits(*kernel, timing.pass))
      entry.error("pass", "a " + kernel->op_name() + " kernel with backward_factor " +
                              std::to_string(kernel->backward_factor) + " has no " + model::to_string(timing.pass) +
                              " kernel in the model");
  }
  entry.finish();
  return timing;
}

} // namespace

model::KernelTimings read_kernel_timings(const std::string& path)
{
  Diagnostics diagnostics;
  model::KernelTimings out;
  if (auto root = load_yaml_file(path, diagnostics)) {
    MappingReader top(*root, path, "", diagnostics);
    if (auto environment = top.child("environment", Presence::Optional))
      read_environment(*environment, path, diagnostics, out);
    if (auto list = top.child("timings", Presence::Required);
        list && expect_sequence(*list, path, "/timings", diagnostics)) {
      out.timings.reserve(list->size());
      for (std::size_t i = 0; i < list->size(); ++i)
        out.timings.push_back(
            read_timing(MappingReader((*list)[i], path, "/timings/" + std::to_string(i), diagnostics)));
    }
    top.finish();
  }
  diagnostics.throw_if_any();
  return out;
}

} // namespace gpuscale::config
