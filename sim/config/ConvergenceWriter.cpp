#include "sim/config/ConvergenceWriter.hpp"

#include "sim/config/ConfigError.hpp"
#include "sim/config/ConvergenceReader.hpp"
#include "sim/config/RcpReader.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuscale::config {
namespace {

/// Shortest decimal that reads back as the same double, never in exponent form.
std::string number(double value)
{
  char buffer[400];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  return std::string(buffer, result.ptr);
}

std::string quoted(const std::string& text)
{
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

/// A count in samples written in the table's unit.
std::string in_unit(double samples, double samples_per_unit)
{
  return number(samples / samples_per_unit);
}

void fail(const std::string& file, const std::string& message)
{
  throw ConfigError({Diagnostic{file, 0, 0, "", message}});
}

} // namespace

std::string format_convergence_yaml(const model::ConvergenceTable& table)
{
  const bool epochs = table.unit == model::ConvergenceUnit::Epochs;
  const std::string unit = to_string(table.unit);
  const double scale = table.samples_per_unit();
  const model::EvaluationSchedule& evaluation = table.evaluation;

  std::ostringstream out;
  out << "# MLPerf Training reference convergence points for " << table.benchmark
      << ", derived by gpuscale; regenerate, do not edit the points.\n"
      << "# Source: " << table.rcp_file << " from " << table.source << ".\n"
      << "# points: per batch size, the olympic mean (runs sorted, fastest and slowest dropped) of the RCP runs' "
      << unit << " to converge.\n"
      << "# Regenerate from the RCP file with gpuscale's write_convergence_yaml (`gpuscale workload convergence`);\n"
      << "# the other fields are kept. Format and derivations: workloads/convergence/README.md.\n"
      << "convergence:\n"
      << "  benchmark: " << table.benchmark << "\n"
      << "  unit: " << unit << "\n";
  if (table.dataset_samples)
    out << "  dataset_samples: " << number(*table.dataset_samples) << "\n";
  out << "  rcp_file: " << quoted(table.rcp_file) << "\n"
      << "  rcp_benchmark: " << table.rcp_benchmark << "\n"
      << "  rcp_mean: olympic\n"
      << "  source: " << quoted(table.source) << "\n"
      << "  points:\n";
  for (const auto& point : table.points)
    out << "    - {global_batch_size: " << point.global_batch_size << ", " << unit << ": " << number(point.value)
        << ", runs: " << point.runs << "}\n";
  out << "  evaluation:\n"
      << "    " << (epochs ? "every_epochs: " : "every_samples: ") << in_unit(evaluation.every_samples, scale) << "\n";
  if (evaluation.every_samples_per_global_batch_sample != 0)
    out << "    every_samples_per_global_batch_sample: " << number(evaluation.every_samples_per_global_batch_sample) << "\n";
  if (evaluation.round_down_to_samples != 0)
    out << "    round_down_to_samples: " << number(evaluation.round_down_to_samples) << "\n";
  if (evaluation.first_at_samples)
    out << "    " << (epochs ? "first_at_epochs: " : "first_at_samples: ") << in_unit(*evaluation.first_at_samples, scale)
        << "\n";
  if (evaluation.first_at_fraction_of_convergence)
    out << "    first_at_fraction_of_convergence: " << number(*evaluation.first_at_fraction_of_convergence) << "\n";
  out << "    eval_samples: " << number(evaluation.eval_samples) << "\n"
      << "    relative_cost_per_sample: " << number(evaluation.relative_cost_per_sample) << "\n"
      << "    timed: " << (evaluation.timed ? "true" : "false") << "\n"
      << "    basis: " << quoted(evaluation.basis) << "\n"
      << "  run_start_overhead: \"" << number(table.run_start_overhead_s) << " s\"\n";
  return out.str();
}

model::ConvergenceTable regenerate_convergence(const ConvergenceRegeneration& request)
{
  const std::string& template_path = request.template_yaml_path;
  model::ConvergenceTable table = read_convergence(template_path);
  const RcpFile rcp = read_rcp_file(request.rcp_json_path);

  std::vector<Diagnostic> problems;
  if (table.benchmark != request.benchmark)
    problems.push_back({template_path, 0, 0, "/convergence/benchmark",
                        "expected benchmark '" + request.benchmark + "', got '" + table.benchmark + "'"});
  if (rcp.benchmark != table.rcp_benchmark)
    problems.push_back({request.rcp_json_path, 0, 0, "",
                        "the RCP records are for benchmark '" + rcp.benchmark + "', but " + template_path +
                            " expects rcp_benchmark '" + table.rcp_benchmark + "'"});
  if (!problems.empty())
    throw ConfigError(problems);

  const std::filesystem::path rcp_path(request.rcp_json_path);
  table.rcp_file = (rcp_path.parent_path().filename() / rcp_path.filename()).generic_string();
  table.points = rcp.points;
  return table;
}

void write_convergence_yaml(const ConvergenceRegeneration& request, const std::string& output_path)
{
  ConvergenceRegeneration resolved = request;
  if (resolved.template_yaml_path.empty())
    resolved.template_yaml_path = output_path;
  const std::string text = format_convergence_yaml(regenerate_convergence(resolved));

  const std::string temporary = output_path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      fail(output_path, "cannot write file");
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, output_path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    fail(output_path, "cannot write file: " + error.message());
  }
}

} // namespace gpuscale::config
