#include "sim/config/MlperfSystemReader.hpp"

#include "sim/config/PrintableText.hpp"
#include "sim/config/MappingReader.hpp"
#include "sim/config/YamlFile.hpp"

#include <cctype>

namespace gpuscale::config {
namespace {

/// A whole number written as a JSON string or number ("8", 8, " 2 "); nullopt otherwise.
std::optional<int> whole_number(const std::string& text)
{
  std::size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
    ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
    --end;
  if (begin == end || end - begin > 9)
    return std::nullopt;
  int value = 0;
  for (std::size_t i = begin; i < end; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])))
      return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

/// The text of `key`, or "" if absent; a non-scalar value is reported. Made printable where it is
/// read: a system's names reach the terminal (predict, check, calibrate) and the import's tables.
std::string optional_text(MappingReader& reader, const std::string& key)
{
  if (!reader.has(key))
    return "";
  return printable(reader.text(key, Presence::Optional).value_or(""));
}

int required_count(MappingReader& reader, const std::string& key, int minimum)
{
  const auto text = reader.text(key, Presence::Required);
  if (!text)
    return 0;
  const auto value = whole_number(*text);
  if (!value || *value < minimum) {
    reader.error(key, "expected a whole number >= " + std::to_string(minimum) + " (as a string, e.g. \"8\"), got '" +
                          *text + "'");
    return 0;
  }
  return *value;
}

model::MlperfSystem read_system(const YAML::Node& root, const std::string& file, Diagnostics& diagnostics)
{
  model::MlperfSystem system;
  system.file = file;
  MappingReader json(root, file, "", diagnostics);
  if (!json.valid())
    return system;
  system.submitter = optional_text(json, "submitter");
  system.system_name = optional_text(json, "system_name");
  system.division = optional_text(json, "division");
  system.status = optional_text(json, "status");
  system.number_of_nodes = required_count(json, "number_of_nodes", 1);
  system.accelerators_per_node = required_count(json, "accelerators_per_node", 0);
  system.accelerator_model_name = printable(json.text("accelerator_model_name", Presence::Required).value_or(""));
  if (json.has("accelerator_model_name")) {
    const YAML::Mark mark = json.node()["accelerator_model_name"].Mark();
    system.accelerator_model_line = mark.line + 1;
    system.accelerator_model_column = mark.column + 1;
  }
  system.accelerator_memory_capacity = optional_text(json, "accelerator_memory_capacity");
  system.accelerator_interconnect = optional_text(json, "accelerator_interconnect");
  system.host_networking = optional_text(json, "host_networking");
  system.host_processor_model_name = optional_text(json, "host_processor_model_name");
  system.host_processor_core_count = whole_number(optional_text(json, "host_processor_core_count")).value_or(0);
  system.host_processors_per_node = whole_number(optional_text(json, "host_processors_per_node")).value_or(0);
  system.framework = optional_text(json, "framework");
  // No json.finish(): keys gpuscale does not use belong to MLCommons' format and are not errors.
  return system;
}

} // namespace

model::MlperfSystem read_mlperf_system_text(const std::string& text, const std::string& display_name)
{
  Diagnostics diagnostics;
  model::MlperfSystem system;
  if (auto root = load_json_text(text, display_name, diagnostics))
    system = read_system(*root, display_name, diagnostics);
  diagnostics.throw_if_any();
  return system;
}

model::MlperfSystem read_mlperf_system(const std::string& path)
{
  Diagnostics diagnostics;
  const auto text = read_text_file(path, diagnostics);
  diagnostics.throw_if_any();
  return read_mlperf_system_text(*text, path);
}

} // namespace gpuscale::config
