#include "sim/config/ConvergenceReader.hpp"

#include "sim/config/MappingReader.hpp"
#include "sim/config/YamlFile.hpp"

#include <algorithm>

namespace gpuscale::config {
namespace {

using model::ConvergenceUnit;

constexpr double kMaxSamples = 1e15;
constexpr long long kMaxBatch = 1'000'000'000LL;

std::vector<model::ConvergencePoint> read_points(const YAML::Node& list, const std::string& file, ConvergenceUnit unit,
                                                 Diagnostics& diagnostics)
{
  std::vector<model::ConvergencePoint> points;
  if (!expect_sequence(list, file, "/convergence/points", diagnostics))
    return points;
  const std::string value_key = to_string(unit);
  const std::string other_key = to_string(unit == ConvergenceUnit::Samples ? ConvergenceUnit::Epochs : ConvergenceUnit::Samples);
  int previous_batch = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    MappingReader point(list[i], file, "/convergence/points/" + std::to_string(i), diagnostics);
    model::ConvergencePoint out;
    const auto batch = point.integer("global_batch_size", 1, kMaxBatch, Presence::Required);
    if (point.has(other_key)) {
      point.child(other_key, Presence::Optional);
      point.error(other_key, "this table counts " + value_key + " (unit: " + value_key + "); expected '" + value_key +
                                 "', got '" + other_key + "'");
    }
    const auto value = point.number(value_key, 0, kMaxSamples, Presence::Required);
    if (value && *value <= 0)
      point.error(value_key, "must be greater than zero, got " + point.node()[value_key].Scalar());
    out.runs = static_cast<int>(point.integer("runs", 3, 1'000'000, Presence::Required).value_or(0));
    point.finish();
    if (batch) {
      out.global_batch_size = static_cast<int>(*batch);
      if (out.global_batch_size <= previous_batch)
        point.error("global_batch_size", "expected batch sizes in increasing order without repeats, got " +
                                             std::to_string(out.global_batch_size) + " after " +
                                             std::to_string(previous_batch));
      previous_batch = std::max(previous_batch, out.global_batch_size);
    }
    out.value = value.value_or(0);
    points.push_back(out);
  }
  return points;
}

/// Reads one of `samples_key` / `epochs_key`, whichever the unit asks for, in samples; reports the other.
std::optional<double> read_count(MappingReader& reader, const std::string& samples_key, const std::string& epochs_key,
                                 ConvergenceUnit unit, double samples_per_unit, Presence presence)
{
  const bool epochs = unit == ConvergenceUnit::Epochs;
  const std::string& wanted = epochs ? epochs_key : samples_key;
  const std::string& other = epochs ? samples_key : epochs_key;
  if (reader.has(other)) {
    reader.child(other, Presence::Optional);
    reader.error(other, "this table counts " + to_string(unit) + "; expected '" + wanted + "', got '" + other + "'");
  }
  const auto value = reader.number(wanted, 0, kMaxSamples, presence);
  if (!value)
    return std::nullopt;
  return *value * samples_per_unit;
}

model::EvaluationSchedule read_evaluation(MappingReader evaluation, ConvergenceUnit unit, double samples_per_unit)
{
  model::EvaluationSchedule out;
  if (auto every = read_count(evaluation, "every_samples", "every_epochs", unit, samples_per_unit, Presence::Required)) {
    if (*every <= 0)
      evaluation.error(unit == ConvergenceUnit::Epochs ? "every_epochs" : "every_samples", "must be greater than zero");
    out.every_samples = *every;
  }
  if (unit == ConvergenceUnit::Samples) {
    out.every_samples_per_global_batch_sample =
        evaluation.number("every_samples_per_global_batch_sample", 0, kMaxSamples, Presence::Optional).value_or(0);
    out.round_down_to_samples = evaluation.number("round_down_to_samples", 0, kMaxSamples, Presence::Optional).value_or(0);
  } else {
    for (const char* key : {"every_samples_per_global_batch_sample", "round_down_to_samples"})
      if (evaluation.has(key)) {
        evaluation.child(key, Presence::Optional);
        evaluation.error(key, "only tables with unit: samples have a batch-dependent interval");
      }
  }
  out.first_at_samples =
      read_count(evaluation, "first_at_samples", "first_at_epochs", unit, samples_per_unit, Presence::Optional);
  out.first_at_fraction_of_convergence =
      evaluation.number("first_at_fraction_of_convergence", 0, 1, Presence::Optional);
  if (out.first_at_fraction_of_convergence && *out.first_at_fraction_of_convergence <= 0)
    evaluation.error("first_at_fraction_of_convergence", "must be greater than zero");
  if (out.first_at_samples && out.first_at_fraction_of_convergence)
    evaluation.error("first_at_fraction_of_convergence",
                     std::string("expected at most one of '") + (unit == ConvergenceUnit::Epochs ? "first_at_epochs" : "first_at_samples") +
                         "' and 'first_at_fraction_of_convergence', got both");
  out.eval_samples = evaluation.number("eval_samples", 1, kMaxSamples, Presence::Required).value_or(0);
  out.relative_cost_per_sample = evaluation.number("relative_cost_per_sample", 0, 1e6, Presence::Required).value_or(0);
  out.timed = evaluation.boolean("timed", Presence::Required).value_or(true);
  out.basis = evaluation.text("basis", Presence::Required).value_or("");
  evaluation.finish();
  return out;
}

model::ConvergenceTable read_table(const YAML::Node& root, const std::string& file, Diagnostics& diagnostics)
{
  model::ConvergenceTable table;
  MappingReader top(root, file, "", diagnostics);
  if (auto node = top.child("convergence", Presence::Required)) {
    MappingReader convergence(*node, file, "/convergence", diagnostics);
    table.benchmark = convergence.identifier("benchmark", Presence::Required).value_or("");
    std::optional<ConvergenceUnit> unit;
    if (auto text = convergence.text("unit", Presence::Required)) {
      unit = model::parse_convergence_unit(*text);
      if (!unit)
        convergence.error("unit", "unknown unit '" + *text + "' (known: " + model::known_convergence_units() + ")");
    }
    table.unit = unit.value_or(ConvergenceUnit::Samples);
    if (auto dataset = convergence.integer("dataset_samples", 1, static_cast<long long>(kMaxSamples), Presence::Optional))
      table.dataset_samples = static_cast<double>(*dataset);
    if (unit == ConvergenceUnit::Epochs && !convergence.has("dataset_samples"))
      convergence.error("dataset_samples", "missing required key 'dataset_samples' (unit: epochs counts passes over the training set)");
    if (unit == ConvergenceUnit::Samples && convergence.has("dataset_samples"))
      convergence.error("dataset_samples", "only tables with unit: epochs use dataset_samples");
    table.rcp_file = convergence.text("rcp_file", Presence::Required).value_or("");
    table.rcp_benchmark = convergence.identifier("rcp_benchmark", Presence::Required).value_or("");
    if (auto mean = convergence.text("rcp_mean", Presence::Required); mean && *mean != "olympic")
      convergence.error("rcp_mean", "unknown average '" + *mean + "' (known: olympic)");
    table.source = convergence.text("source", Presence::Required).value_or("");
    table.run_start_overhead_s = convergence.quantity("run_start_overhead", units::Dimension::Seconds, Presence::Required).value_or(0);

    auto points = convergence.child("points", Presence::Required);
    auto evaluation = convergence.child("evaluation", Presence::Required);
    // Everything below depends on the unit; with an unknown unit it would only add noise.
    const bool scale_known = unit && (*unit == ConvergenceUnit::Samples || table.dataset_samples);
    if (scale_known) {
      if (points)
        table.points = read_points(*points, file, *unit, diagnostics);
      if (evaluation)
        table.evaluation = read_evaluation(MappingReader(*evaluation, file, "/convergence/evaluation", diagnostics), *unit,
                                           table.samples_per_unit());
    }
    convergence.finish();
  }
  top.finish();
  return table;
}

} // namespace

model::ConvergenceTable read_convergence_text(const std::string& text, const std::string& display_name)
{
  Diagnostics diagnostics;
  model::ConvergenceTable table;
  if (auto root = load_yaml_text(text, display_name, diagnostics))
    table = read_table(*root, display_name, diagnostics);
  diagnostics.throw_if_any();
  return table;
}

model::ConvergenceTable read_convergence(const std::string& path)
{
  Diagnostics diagnostics;
  model::ConvergenceTable table;
  if (auto root = load_yaml_file(path, diagnostics))
    table = read_table(*root, path, diagnostics);
  diagnostics.throw_if_any();
  return table;
}

} // namespace gpuscale::config
