#pragma once
/// Typed, located access to the fields of one YAML mapping. Every problem becomes a diagnostic
/// (the reader goes on, so a file's problems are reported together); keys never asked for are
/// reported as unknown by finish().

#include "sim/config/ConfigError.hpp"
#include "sim/units/Quantity.hpp"

#include <yaml-cpp/yaml.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gpuscale::config {

enum class Presence { Required, Optional };

/// Records a diagnostic located at `node` (or at the file start if the node has no mark).
void report(Diagnostics& diagnostics, const std::string& file, const YAML::Node& node, const std::string& path,
            const std::string& message);

class MappingReader {
public:
  /// `node` should be a mapping; if it is not, one diagnostic is recorded and every getter returns nullopt.
  MappingReader(YAML::Node node, std::string file, std::string path, Diagnostics& diagnostics);

  bool valid() const { return valid_; }
  bool has(const std::string& key) const;

  std::optional<std::string> text(const std::string& key, Presence presence);
  /// A kebab-case identifier: [a-z0-9][a-z0-9._-]*
  std::optional<std::string> identifier(const std::string& key, Presence presence);
  std::optional<double> quantity(const std::string& key, units::Dimension dimension, Presence presence);
  /// Strictly positive quantity (bandwidths, sizes, peaks).
  std::optional<double> positive_quantity(const std::string& key, units::Dimension dimension, Presence presence);
  std::optional<long long> integer(const std::string& key, long long min_value, long long max_value,
                                   Presence presence);
  std::optional<double> number(const std::string& key, double min_value, double max_value, Presence presence);
  std::optional<bool> boolean(const std::string& key, Presence presence);
  std::optional<std::vector<std::string>> string_list(const std::string& key, Presence presence);
  /// A nested node (mapping or sequence) with its path; nullopt if absent (and, if required, a diagnostic).
  std::optional<YAML::Node> child(const std::string& key, Presence presence);

  /// Reports keys that no getter asked for. Call once after reading every field.
  void finish();

  std::string path_of(const std::string& key) const { return path_ + "/" + key; }
  const std::string& file() const { return file_; }
  /// The keys asked for so far (the ones finish() accepts).
  const std::set<std::string>& keys_read() const { return used_; }
  Diagnostics& diagnostics() const { return diagnostics_; }
  const YAML::Node& node() const { return node_; }
  void error(const std::string& key, const std::string& message) const;

private:
  /// The value of `key` (its first entry if repeated, as yaml-cpp's operator[]), or null when absent.
  const YAML::Node* lookup(const std::string& key) const;
  std::optional<YAML::Node> scalar(const std::string& key, Presence presence, const char* expected);

  YAML::Node node_;
  std::string file_;
  std::string path_;
  Diagnostics& diagnostics_;
  bool valid_ = true;
  std::set<std::string> used_;
  /// The mapping's scalar keys and values in document order, listed once: yaml-cpp's operator[] builds
  /// a stringstream for every absent key, and a scenario's reader asks for dozens of optional keys
  /// (most of the cost of checking a sweep point by point).
  struct Entry {
    std::string name; ///< the key's text, "?" for a key that is not a scalar
    bool scalar_key;
    YAML::Node key;
    YAML::Node value;
  };
  std::vector<Entry> entries_;
};

/// Checks that `node` is a non-empty sequence; reports and returns false otherwise.
bool expect_sequence(const YAML::Node& node, const std::string& file, const std::string& path,
                     Diagnostics& diagnostics, bool allow_empty = false);

} // namespace gpuscale::config
