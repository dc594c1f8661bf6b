#include "sim/config/RcpReader.hpp"

#include "sim/config/MappingReader.hpp"
#include "sim/config/YamlFile.hpp"
#include "sim/model/OlympicMean.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

namespace gpuscale::config {
namespace {

constexpr const char* kEpochsKey = "Epochs to converge";
constexpr const char* kSamplesKey = "samples to converge";

/// The runs of one record; nullopt (with diagnostics) if any is not a positive number.
std::optional<std::vector<double>> read_runs(MappingReader& record)
{
  const bool has_epochs = record.has(kEpochsKey);
  const bool has_samples = record.has(kSamplesKey);
  if (has_epochs && has_samples) {
    record.error(kSamplesKey, std::string("expected one of '") + kEpochsKey + "' and '" + kSamplesKey + "', got both");
    return std::nullopt;
  }
  const char* key = has_samples ? kSamplesKey : kEpochsKey;
  auto list = record.child(key, Presence::Required);
  if (!list || !expect_sequence(*list, record.file(), record.path_of(key), record.diagnostics()))
    return std::nullopt;
  std::vector<double> runs;
  bool ok = true;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const YAML::Node item = (*list)[i];
    double value = 0;
    if (!item.IsScalar() || !YAML::convert<double>::decode(item, value) || !std::isfinite(value) || value <= 0) {
      report(record.diagnostics(), record.file(), item, record.path_of(key) + "/" + std::to_string(i),
             "expected a positive number of samples or epochs, got '" + (item.IsScalar() ? item.Scalar() : "?") + "'");
      ok = false;
      continue;
    }
    runs.push_back(value);
  }
  if (ok && runs.size() < 3) {
    report(record.diagnostics(), record.file(), *list, record.path_of(key),
           "expected at least 3 runs (the olympic mean drops the fastest and the slowest), got " +
               std::to_string(runs.size()));
    ok = false;
  }
  return ok ? std::optional(runs) : std::nullopt;
}

} // namespace

RcpFile read_rcp_file(const std::string& path)
{
  Diagnostics diagnostics;
  RcpFile rcp;
  if (auto root = load_json_file(path, diagnostics)) {
    MappingReader top(*root, path, "", diagnostics);
    if (top.valid() && root->size() == 0)
      report(diagnostics, path, *root, "/", "expected at least one RCP record, got an empty object");
    std::map<int, std::string> record_of_batch;
    for (auto it = root->begin(); top.valid() && it != root->end(); ++it) {
      const std::string name = it->first.Scalar();
      MappingReader record(it->second, path, "/" + name, diagnostics);
      if (!record.valid())
        continue;
      const auto benchmark = record.text("Benchmark", Presence::Required);
      const auto batch = record.integer("BS", 1, INT_MAX, Presence::Required);
      const auto runs = read_runs(record);
      if (benchmark) {
        if (rcp.benchmark.empty())
          rcp.benchmark = *benchmark;
        else if (*benchmark != rcp.benchmark)
          record.error("Benchmark", "expected '" + rcp.benchmark + "' like the file's first record, got '" + *benchmark + "'");
      }
      if (batch) {
        const auto [previous, inserted] = record_of_batch.emplace(static_cast<int>(*batch), name);
        if (!inserted)
          record.error("BS", "batch size " + std::to_string(*batch) + " already has record '" + previous->second + "'");
        else if (runs)
          rcp.points.push_back({static_cast<int>(*batch), model::olympic_mean(*runs), static_cast<int>(runs->size())});
      }
    }
  }
  diagnostics.throw_if_any();
  std::sort(rcp.points.begin(), rcp.points.end(),
            [](const auto& a, const auto& b) { return a.global_batch_size < b.global_batch_size; });
  return rcp;
}

} // namespace gpuscale::config
