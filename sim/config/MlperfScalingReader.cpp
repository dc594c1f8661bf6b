#include "sim/config/MlperfScalingReader.hpp"

#include "sim/config/ConfigError.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/model/MlperfRun.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <sstream>
#include <vector>

namespace gpuscale::config {
namespace {

std::optional<double> factor_of(const std::string& text)
{
  if (text.empty())
    return 1.0;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < kMinRcpScaling ||
      value > kMaxRcpScaling)
    return std::nullopt;
  return value;
}

} // namespace

std::optional<CsvRecord> parse_csv_record(const std::string& line)
{
  CsvRecord record{{std::string()}, {1}};
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    std::string& field = record.fields.back();
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.fields.emplace_back();
      record.columns.push_back(static_cast<int>(i) + 2);
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted)
    return std::nullopt;
  return record;
}

double read_mlperf_scaling_json(const std::string& path)
{
  Diagnostics diagnostics;
  const auto json = load_json_file(path, diagnostics);
  diagnostics.throw_if_any();
  const YAML::Node factor = json->IsMap() ? (*json)["scaling_factor"] : YAML::Node();
  double value = 0;
  const bool number = factor && factor.IsScalar() && YAML::convert<double>::decode(factor, value);
  if (!number || !std::isfinite(value) || value < kMinRcpScaling || value > kMaxRcpScaling) {
    const YAML::Mark mark = factor ? factor.Mark() : json->Mark();
    throw ConfigError({{path, mark.line + 1, mark.column + 1, "/scaling_factor",
                        fmt::format("expected a number in [{}, {}] (the factor MLCommons multiplies the score by)",
                                    kMinRcpScaling, kMaxRcpScaling)}});
  }
  return value;
}

std::map<std::string, double> read_scores_table_scaling(const std::string& path)
{
  Diagnostics diagnostics;
  const auto text = read_text_file(path, diagnostics);
  diagnostics.throw_if_any();
  std::istringstream lines(*text);
  std::string line;
  std::getline(lines, line);
  const auto header = parse_csv_record(line);
  const char* required[] = {"round", "submitter", "system", "benchmark", "rcp_scaling_factor"};
  std::map<std::string, std::size_t> column;
  if (header)
    for (std::size_t i = 0; i < header->fields.size(); ++i)
      column[header->fields[i]] = i;
  for (const char* name : required)
    if (!column.contains(name))
      throw ConfigError({{path, 1, 1, "", fmt::format("no column '{}' in the header", name)}});
  const std::size_t round = column["round"], submitter = column["submitter"], system = column["system"],
                    benchmark = column["benchmark"], factor_column = column["rcp_scaling_factor"];
  std::map<std::string, double> factors;
  for (int number = 2; std::getline(lines, line); ++number) {
    if (line.empty() || line == "\r")
      continue;
    const auto record = parse_csv_record(line);
    if (!record || record->fields.size() != header->fields.size()) {
      diagnostics.add({path, number, 1, "",
                       record ? fmt::format("{} fields where the header has {}", record->fields.size(),
                                            header->fields.size())
                              : std::string("a quoted field is not closed")});
      continue;
    }
    const auto& f = record->fields;
    const auto factor = factor_of(f[factor_column]);
    if (!factor) {
      diagnostics.add({path, number, record->columns[factor_column], "rcp_scaling_factor",
                       fmt::format("expected empty or a number in [{}, {}], got '{}'", kMinRcpScaling, kMaxRcpScaling,
                                   f[factor_column])});
      continue;
    }
    factors[model::mlperf_entry_key(f[round], f[submitter], f[system], f[benchmark])] = *factor;
  }
  diagnostics.throw_if_any();
  return factors;
}

} // namespace gpuscale::config
