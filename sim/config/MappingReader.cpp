#include "sim/config/MappingReader.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>

namespace gpuscale::config {
namespace {

std::string node_kind(const YAML::Node& node)
{
  switch (node.Type()) {
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Scalar: return "'" + node.Scalar() + "'";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Undefined: return "nothing";
  }
  return "?";
}

bool is_identifier(const std::string& text)
{
  if (text.empty() || text.size() > 128)
    return false;
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_or_digit(text.front()))
    return false;
  for (char c : text)
    if (!lower_or_digit(c) && c != '-' && c != '_' && c != '.')
      return false;
  return true;
}

constexpr const char* kCoreTagPrefix = "tag:yaml.org,2002:";

/// Why `node` cannot be a value of YAML 1.2 core type `core_type` ("int", "float", "bool"), or "" if
/// it can: a quoted scalar is a string ("8" is not 8), and a tag other than the type's own (!!str,
/// !custom) says the value is something else.
std::string typed_scalar_problem(const YAML::Node& node, const std::string& core_type, const std::string& expected)
{
  const std::string& tag = node.Tag();
  if (tag == "?" || tag.empty() || tag == kCoreTagPrefix + core_type) // "": a node built in code (a sweep axis value)
    return "";
  if (tag == "!" || tag == std::string(kCoreTagPrefix) + "str")
    return "expected " + expected + ", got the string '" + node.Scalar() + "' (write it without quotes or tag)";
  const std::string shown = tag.rfind(kCoreTagPrefix, 0) == 0 ? "!!" + tag.substr(std::string(kCoreTagPrefix).size()) : tag;
  return "expected " + expected + ", got a value tagged '" + shown + "' (gpuscale files use no tags)";
}

/// YAML 1.2 decimal integer: [-+]?[0-9]+, without leading zeros. YAML 1.1 (yaml-cpp, PyYAML) reads
/// 010 as octal 8 and YAML 1.2 as decimal 10; rather than guess, a leading zero is refused.
bool decimal_integer(const std::string& text, long long& value)
{
  const std::size_t sign = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  if (text.size() == sign || text.find_first_not_of("0123456789", sign) != std::string::npos)
    return false;
  if (text[sign] == '0' && text.size() > sign + 1)
    return false;
  errno = 0;
  char* end = nullptr;
  value = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size();
}

bool has_leading_zero(const std::string& text)
{
  const std::size_t sign = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  return text.size() > sign + 1 && text[sign] == '0' && text.find_first_not_of("0123456789", sign) == std::string::npos;
}

/// The plausible range of a non-zero quantity of each dimension, in SI units, and as written in
/// messages. Values outside are typing errors (a unit prefix too many or too few), not hardware; they
/// would otherwise reach SimGrid as durations it cannot represent, or print as 300-digit numbers.
/// Zero stays allowed where the field allows it (positive_quantity refuses it where it does not).
/// Documented in platforms/SCHEMA.md ("Plausible ranges").
struct PlausibleRange {
  double min_si;
  double max_si;
  const char* what;
  const char* min_text;
  const char* max_text;
};

PlausibleRange plausible_range(units::Dimension dimension)
{
  using units::Dimension;
  switch (dimension) {
    case Dimension::Bytes: return {1.0, 1e15, "data size", "1 B", "1 PB"};
    case Dimension::BytesPerSecond: return {1e6, 1e15, "bandwidth", "1 MB/s", "1 PB/s"};
    case Dimension::Flop: return {1.0, 1e21, "FLOP count", "1 FLOP", "1e21 FLOP"};
    case Dimension::FlopPerSecond: return {1e9, 1e18, "compute rate", "1 GFLOP/s", "1 EFLOP/s"};
    case Dimension::Seconds: return {1e-12, 1e6, "duration", "1 ps", "1e6 s"};
    case Dimension::Watts: return {1.0, 1e5, "power", "1 W", "100 kW"};
    case Dimension::UsdPerHour: return {1e-6, 1e6, "price", "1e-6 USD/h", "1e6 USD/h"};
  }
  return {0, 0, "", "", ""};
}

/// 1e-06, 1, 1024, 1e+15: bounds as a reader would write them, not std::to_string's 0.000001 / 1024.000000.
std::string shortest(double value)
{
  char text[32];
  std::snprintf(text, sizeof text, "%.15g", value);
  return text;
}

} // namespace

void report(Diagnostics& diagnostics, const std::string& file, const YAML::Node& node, const std::string& path,
            const std::string& message)
{
  const YAML::Mark mark = node.IsDefined() ? node.Mark() : YAML::Mark::null_mark();
  const bool located = mark.line >= 0 && mark.pos >= 0;
  diagnostics.add({file, located ? mark.line + 1 : 0, located ? mark.column + 1 : 0, path, message});
}

MappingReader::MappingReader(YAML::Node node, std::string file, std::string path, Diagnostics& diagnostics)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)), diagnostics_(diagnostics)
{
  if (!node_.IsMap()) {
    report(diagnostics_, file_, node_, path_.empty() ? "/" : path_, "expected a mapping, got " + node_kind(node_));
    valid_ = false;
    return;
  }
  entries_.reserve(node_.size());
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const bool scalar_key = it->first.IsScalar();
    entries_.push_back({scalar_key ? it->first.Scalar() : "?", scalar_key, it->first, it->second});
  }
}

const YAML::Node* MappingReader::lookup(const std::string& key) const
{
  for (const auto& entry : entries_)
    if (entry.scalar_key && entry.name == key)
      return &entry.value;
  return nullptr;
}

bool MappingReader::has(const std::string& key) const
{
  return valid_ && lookup(key) != nullptr;
}

void MappingReader::error(const std::string& key, const std::string& message) const
{
  const YAML::Node* value = valid_ ? lookup(key) : nullptr;
  report(diagnostics_, file_, value ? *value : node_, path_of(key), message);
}

std::optional<YAML::Node> MappingReader::child(const std::string& key, Presence presence)
{
  used_.insert(key);
  if (!valid_)
    return std::nullopt;
  const YAML::Node* value = lookup(key);
  if (!value) {
    if (presence == Presence::Required)
      report(diagnostics_, file_, node_, path_of(key), "missing required key '" + key + "'");
    return std::nullopt;
  }
  return *value;
}

std::optional<YAML::Node> MappingReader::scalar(const std::string& key, Presence presence, const char* expected)
{
  auto value = child(key, presence);
  if (!value)
    return std::nullopt;
  if (!value->IsScalar()) {
    report(diagnostics_, file_, *value, path_of(key), std::string("expected ") + expected + ", got " + node_kind(*value));
    return std::nullopt;
  }
  return value;
}

std::optional<std::string> MappingReader::text(const std::string& key, Presence presence)
{
  auto value = scalar(key, presence, "a string");
  if (!value)
    return std::nullopt;
  return value->Scalar();
}

std::optional<std::string> MappingReader::identifier(const std::string& key, Presence presence)
{
  auto value = scalar(key, presence, "a name");
  if (!value)
    return std::nullopt;
  if (!is_identifier(value->Scalar())) {
    report(diagnostics_, file_, *value, path_of(key),
           "expected a lower-case name ([a-z0-9][a-z0-9._-]*), got '" + value->Scalar() + "'");
    return std::nullopt;
  }
  return value->Scalar();
}

std::optional<double> MappingReader::quantity(const std::string& key, units::Dimension dimension, Presence presence)
{
  auto value = scalar(key, presence, units::dimension_description(dimension).c_str());
  if (!value)
    return std::nullopt;
  try {
    const double parsed = units::parse_quantity(value->Scalar(), dimension);
    const PlausibleRange range = plausible_range(dimension);
    if (parsed != 0 && (parsed < range.min_si || parsed > range.max_si)) {
      report(diagnostics_, file_, *value, path_of(key),
             std::string("'") + value->Scalar() + "' is outside the plausible range of a " + range.what + ", " +
                 range.min_text + " to " + range.max_text);
      return std::nullopt;
    }
    return parsed;
  } catch (const units::UnitError& e) {
    report(diagnostics_, file_, *value, path_of(key), e.what());
    return std::nullopt;
  }
}

std::optional<double> MappingReader::positive_quantity(const std::string& key, units::Dimension dimension,
                                                       Presence presence)
{
  auto value = quantity(key, dimension, presence);
  if (value && *value <= 0) {
    error(key, "must be greater than zero, got '" + lookup(key)->Scalar() + "'");
    return std::nullopt;
  }
  return value;
}

std::optional<long long> MappingReader::integer(const std::string& key, long long min_value, long long max_value,
                                                Presence presence)
{
  auto value = scalar(key, presence, "an integer");
  if (!value)
    return std::nullopt;
  if (has_leading_zero(value->Scalar())) {
    report(diagnostics_, file_, *value, path_of(key),
           "expected a decimal integer without leading zeros, got " + value->Scalar() +
               " (YAML 1.1 reads it as octal, YAML 1.2 as decimal)");
    return std::nullopt;
  }
  long long parsed = 0;
  if (!decimal_integer(value->Scalar(), parsed)) {
    const std::string& text = value->Scalar();
    const std::size_t sign = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
    const bool all_digits = text.size() > sign && text.find_first_not_of("0123456789", sign) == std::string::npos;
    report(diagnostics_, file_, *value, path_of(key),
           all_digits ? "expected an integer in [" + std::to_string(min_value) + ", " + std::to_string(max_value) +
                            "], got " + text
                      : "expected an integer, got '" + text + "'");
    return std::nullopt;
  }
  if (const std::string problem = typed_scalar_problem(*value, "int", "an integer"); !problem.empty()) {
    report(diagnostics_, file_, *value, path_of(key), problem);
    return std::nullopt;
  }
  if (parsed < min_value || parsed > max_value) {
    report(diagnostics_, file_, *value, path_of(key),
           "expected an integer in [" + std::to_string(min_value) + ", " + std::to_string(max_value) + "], got " +
               value->Scalar());
    return std::nullopt;
  }
  return parsed;
}

std::optional<double> MappingReader::number(const std::string& key, double min_value, double max_value,
                                            Presence presence)
{
  auto value = scalar(key, presence, "a number");
  if (!value)
    return std::nullopt;
  double parsed = 0;
  if (!YAML::convert<double>::decode(*value, parsed) || !std::isfinite(parsed)) {
    report(diagnostics_, file_, *value, path_of(key), "expected a number, got '" + value->Scalar() + "'");
    return std::nullopt;
  }
  const bool integer_tag = value->Tag() == std::string(kCoreTagPrefix) + "int";
  if (const std::string problem = integer_tag ? "" : typed_scalar_problem(*value, "float", "a number"); !problem.empty()) {
    report(diagnostics_, file_, *value, path_of(key), problem);
    return std::nullopt;
  }
  if (parsed < min_value || parsed > max_value) {
    report(diagnostics_, file_, *value, path_of(key),
           "expected a number in [" + shortest(min_value) + ", " + shortest(max_value) + "], got " + value->Scalar());
    return std::nullopt;
  }
  return parsed;
}

std::optional<bool> MappingReader::boolean(const std::string& key, Presence presence)
{
  auto value = scalar(key, presence, "true or false");
  if (!value)
    return std::nullopt;
  // YAML 1.2 core booleans only: YAML 1.1's yes/no/on/off/y/n are strings there.
  static const std::map<std::string, bool> core{{"true", true},  {"True", true},   {"TRUE", true},
                                                {"false", false}, {"False", false}, {"FALSE", false}};
  const auto found = core.find(value->Scalar());
  const bool parsed = found != core.end() && found->second;
  if (found == core.end()) {
    report(diagnostics_, file_, *value, path_of(key), "expected true or false, got '" + value->Scalar() + "'");
    return std::nullopt;
  }
  if (const std::string problem = typed_scalar_problem(*value, "bool", "true or false"); !problem.empty()) {
    report(diagnostics_, file_, *value, path_of(key), problem);
    return std::nullopt;
  }
  return parsed;
}

std::optional<std::vector<std::string>> MappingReader::string_list(const std::string& key, Presence presence)
{
  auto value = child(key, presence);
  if (!value)
    return std::nullopt;
  if (!expect_sequence(*value, file_, path_of(key), diagnostics_, true))
    return std::nullopt;
  std::vector<std::string> items;
  for (std::size_t i = 0; i < value->size(); ++i) {
    const YAML::Node item = (*value)[i];
    if (!item.IsScalar()) {
      report(diagnostics_, file_, item, path_of(key) + "/" + std::to_string(i), "expected a string, got " + node_kind(item));
      continue;
    }
    items.push_back(item.Scalar());
  }
  return items;
}

void MappingReader::finish()
{
  if (!valid_)
    return;
  std::map<std::string, int> first_line; // yaml-cpp keeps both entries of a repeated key; only one would be read
  for (const auto& entry : entries_) {
    const std::string& key = entry.name;
    if (const auto [first, inserted] = first_line.emplace(key, entry.key.Mark().line + 1); !inserted) {
      report(diagnostics_, file_, entry.key, path_of(key),
             "duplicate key '" + key + "' (first given on line " + std::to_string(first->second) + ")");
      continue;
    }
    if (!used_.contains(key)) {
      std::string known;
      for (const auto& k : used_)
        known += (known.empty() ? "" : ", ") + k;
      report(diagnostics_, file_, entry.key, path_of(key), "unknown key '" + key + "' (known keys: " + known + ")");
    }
  }
}

bool expect_sequence(const YAML::Node& node, const std::string& file, const std::string& path,
                     Diagnostics& diagnostics, bool allow_empty)
{
  if (!node.IsSequence()) {
    report(diagnostics, file, node, path, "expected a list, got " + node_kind(node));
    return false;
  }
  if (!allow_empty && node.size() == 0) {
    report(diagnostics, file, node, path, "expected a non-empty list");
    return false;
  }
  return true;
}

} // namespace gpuscale::config
