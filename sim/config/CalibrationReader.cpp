#include "sim/config/CalibrationReader.hpp"

#include "sim/config/MappingReader.hpp"
#include "sim/config/YamlFile.hpp"

#include <fmt/format.h>

namespace gpuscale::config {
namespace {

using units::Dimension;

model::CalibratedValue read_value(MappingReader reader, bool seconds, model::ParameterRange range)
{
  model::CalibratedValue value;
  if (seconds) {
    value.value = reader.quantity("value", Dimension::Seconds, Presence::Required).value_or(0);
    if (value.value < range.lower || value.value > range.upper)
      reader.error("value", fmt::format("expected a duration in [{} s, {} s], got {} s", range.lower, range.upper,
                                        value.value));
    value.standard_error = reader.quantity("standard_error", Dimension::Seconds, Presence::Optional).value_or(0);
  } else {
    value.value = reader.number("value", range.lower, range.upper, Presence::Required).value_or(0);
    value.standard_error = reader.number("standard_error", 0, 1e6, Presence::Optional).value_or(0);
  }
  value.results = static_cast<int>(reader.integer("results", 0, 1'000'000, Presence::Optional).value_or(0));
  value.identified = reader.boolean("identified", Presence::Optional).value_or(true);
  value.note = reader.text("note", Presence::Optional).value_or("");
  reader.finish();
  return value;
}

/// "bert, llama2_70b_lora, ...": the benchmark keys a calibration file may use (gpuscale's names only).
std::string benchmark_keys()
{
  std::string text;
  for (const auto benchmark : model::all_benchmarks())
    text += (text.empty() ? "" : ", ") + model::to_string(benchmark);
  return text;
}

/// Whether `name` is a maturity parameter: gap_kept_per_year or at_launch.<benchmark> (SoftwareMaturity.hpp).
bool known_maturity_key(const std::string& name)
{
  if (name == model::kMaturityGapKey)
    return true;
  for (const auto benchmark : model::all_benchmarks())
    if (name == model::maturity_at_launch_key(benchmark))
      return true;
  return false;
}

std::string unknown_benchmark(const std::string& name)
{
  return "unknown benchmark '" + name + "' (known: " + benchmark_keys() + ")";
}

/// The key `name` of a group keyed by `Key`: any name for named groups, a benchmark's name for
/// benchmark groups (else a located error at the key, and nullopt).
std::optional<std::string> parse_key(const std::string& name, const YAML::Node&, const MappingReader&, const std::string*)
{
  return name;
}
std::optional<model::Benchmark> parse_key(const std::string& name, const YAML::Node& key_node,
                                          const MappingReader& group, const model::Benchmark*)
{
  if (const auto benchmark = model::benchmark_of_name(name))
    return benchmark;
  report(group.diagnostics(), group.file(), key_node, group.path_of(name), unknown_benchmark(name));
  return std::nullopt;
}

template <class Key>
void read_group(MappingReader& parent, const std::string& key, bool seconds, std::map<Key, model::CalibratedValue>& out)
{
  const model::ParameterRange range = model::parameter_range(key);
  auto node = parent.child(key, Presence::Optional);
  if (!node)
    return;
  MappingReader group(*node, parent.file(), parent.path_of(key), parent.diagnostics());
  if (!group.valid())
    return;
  for (auto it = node->begin(); it != node->end(); ++it) {
    const std::string name = it->first.Scalar();
    const auto parsed = parse_key(name, it->first, group, static_cast<const Key*>(nullptr));
    if (key == "maturity" && !known_maturity_key(name)) {
      report(group.diagnostics(), group.file(), it->first, group.path_of(name),
             "unknown maturity parameter '" + name + "' (known: " + model::kMaturityGapKey +
                 ", at_launch.<benchmark> with " + benchmark_keys() + ")");
      (void)group.child(name, Presence::Optional);
      continue;
    }
    const auto value = read_value(MappingReader(it->second, parent.file(), group.path_of(name), parent.diagnostics()),
                                  seconds, range);
    if (parsed)
      out[*parsed] = value;
    (void)group.child(name, Presence::Optional);
  }
  group.finish();
}

/// software_reference_date: "YYYY-MM-DD" (model::parse_software_date), required with maturity.
void read_software_reference_date(MappingReader& parent, model::Calibration& calibration)
{
  if (auto text = parent.text("software_reference_date", Presence::Optional)) {
    if (auto date = model::parse_software_date(*text))
      calibration.software_reference_date = *date;
    else
      parent.error("software_reference_date", "expected " + std::string(model::kSoftwareDateForms) + ", got '" +
                                                  *text + "'");
  } else if (!calibration.maturity.empty()) {
    parent.error("maturity", "software maturity needs the date predictions default to (software_reference_date: "
                             "YYYY-MM-DD)");
  }
}

/// maturity: the gap with at least one at_launch (SoftwareMaturity.hpp); unknown keys are reported
/// where they stand (read_group).
void check_maturity(MappingReader& parent, const model::Calibration& calibration)
{
  bool any_at_launch = false;
  for (const auto& [name, value] : calibration.maturity)
    any_at_launch = any_at_launch || name != model::kMaturityGapKey;
  if (!calibration.maturity.empty() && (!any_at_launch || !calibration.maturity.contains(model::kMaturityGapKey)))
    parent.error("maturity", "software maturity needs gap_kept_per_year and at least one at_launch.<benchmark>");
}

/// Each entry of the sequence `key` of `parent`, a mapping with a required `benchmark`: `read(entry,
/// name, benchmark)` reads the rest (benchmark is nullopt when the name is unknown, already reported),
/// then the entry's unknown keys are reported.
template <class Read>
void read_benchmark_entries(MappingReader& parent, const char* key, Read&& read)
{
  auto node = parent.child(key, Presence::Optional);
  if (!node || !expect_sequence(*node, parent.file(), parent.path_of(key), parent.diagnostics(), true))
    return;
  for (std::size_t i = 0; i < node->size(); ++i) {
    MappingReader entry((*node)[i], parent.file(), parent.path_of(key) + "/" + std::to_string(i), parent.diagnostics());
    const auto name = entry.identifier("benchmark", Presence::Required);
    const auto benchmark = name ? model::benchmark_of_name(*name) : std::nullopt;
    if (name && !benchmark)
      entry.error("benchmark", unknown_benchmark(*name));
    read(entry, name.value_or(""), benchmark);
    entry.finish();
  }
}

/// batch_sizes: [{benchmark, accelerators, global_batch_size, results}], each benchmark's points in
/// increasing accelerator count (Calibration::batch_size_for interpolates between neighbours).
void read_batch_sizes(MappingReader& parent, std::vector<model::BatchSizePoint>& out)
{
  read_benchmark_entries(parent, "batch_sizes", [&](MappingReader& rule, const std::string& name,
                                                    std::optional<model::Benchmark> benchmark) {
    model::BatchSizePoint r;
    r.benchmark = benchmark.value_or(model::Benchmark::Bert);
    r.accelerators = static_cast<int>(rule.integer("accelerators", 1, 10'000'000, Presence::Required).value_or(0));
    for (const auto& earlier : out)
      if (benchmark && earlier.benchmark == r.benchmark && r.accelerators > 0 && earlier.accelerators >= r.accelerators)
        rule.error("accelerators", fmt::format("{} after {} for {}: each benchmark's points must increase in "
                                               "accelerators", r.accelerators, earlier.accelerators, name));
    r.global_batch_size = static_cast<int>(rule.integer("global_batch_size", 1, 1'000'000'000, Presence::Required).value_or(0));
    r.results = static_cast<int>(rule.integer("results", 0, 1'000'000, Presence::Optional).value_or(0));
    if (benchmark)
      out.push_back(r);
  });
}

/// convergence_factors: [{benchmark, global_batch_size (absent: the benchmark's), factor, results}],
/// at most one per benchmark and batch size.
void read_convergence_factors(MappingReader& parent, std::vector<model::ConvergenceFactor>& out)
{
  read_benchmark_entries(parent, "convergence_factors", [&](MappingReader& entry, const std::string& name,
                                                            std::optional<model::Benchmark> benchmark) {
    model::ConvergenceFactor f;
    f.benchmark = benchmark.value_or(model::Benchmark::Bert);
    f.global_batch_size =
        static_cast<int>(entry.integer("global_batch_size", 1, 1'000'000'000, Presence::Optional).value_or(0));
    for (const auto& earlier : out)
      if (benchmark && earlier.benchmark == f.benchmark && earlier.global_batch_size == f.global_batch_size)
        entry.error(f.global_batch_size > 0 ? "global_batch_size" : "benchmark",
                    f.global_batch_size > 0
                        ? fmt::format("a second factor for {} at global batch size {}", name, f.global_batch_size)
                        : fmt::format("a second factor for {} without a global batch size", name));
    f.factor = entry.number("factor", model::kConvergenceFactorRange.lower, model::kConvergenceFactorRange.upper,
                            Presence::Required)
                   .value_or(1.0);
    f.results = static_cast<int>(entry.integer("results", 0, 1'000'000, Presence::Optional).value_or(0));
    if (benchmark)
      out.push_back(f);
  });
}

/// intervals: {families: [...], calibrated_accelerators: {benchmark: n},
///             modes: {mode: {low_log, high_log, results, coverage, parameter_log_sd}}}
void read_intervals(MappingReader& parent, model::IntervalModel& out)
{
  auto node = parent.child("intervals", Presence::Optional);
  if (!node)
    return;
  MappingReader intervals(*node, parent.file(), parent.path_of("intervals"), parent.diagnostics());
  if (!intervals.valid())
    return;
  out.families = intervals.string_list("families", Presence::Required).value_or(std::vector<std::string>{});
  if (auto scale = intervals.child("calibrated_accelerators", Presence::Required)) {
    MappingReader reader(*scale, parent.file(), intervals.path_of("calibrated_accelerators"), parent.diagnostics());
    if (reader.valid())
      for (auto it = scale->begin(); it != scale->end(); ++it) {
        const std::string name = it->first.Scalar();
        const auto benchmark = parse_key(name, it->first, reader, static_cast<const model::Benchmark*>(nullptr));
        const int accelerators = static_cast<int>(reader.integer(name, 1, 100'000'000, Presence::Required).value_or(1));
        if (benchmark)
          out.calibrated_accelerators[*benchmark] = accelerators;
      }
    reader.finish();
  }
  if (auto counts = intervals.child("family_results", Presence::Optional)) {
    MappingReader reader(*counts, parent.file(), intervals.path_of("family_results"), parent.diagnostics());
    if (reader.valid())
      for (auto it = counts->begin(); it != counts->end(); ++it) {
        const std::string family = it->first.Scalar();
        const auto node = reader.child(family, Presence::Required);
        if (!node)
          continue;
        MappingReader per(*node, parent.file(), reader.path_of(family), parent.diagnostics());
        if (per.valid())
          for (auto b = node->begin(); b != node->end(); ++b) {
            const std::string name = b->first.Scalar();
            const auto benchmark = parse_key(name, b->first, per, static_cast<const model::Benchmark*>(nullptr));
            const int n = static_cast<int>(per.integer(name, 1, 1'000'000, Presence::Required).value_or(1));
            if (benchmark)
              out.family_results[family][*benchmark] = n;
          }
        per.finish();
      }
    reader.finish();
  }
  std::vector<std::string> known;
  for (auto regime : model::all_prediction_regimes())
    known.push_back(model::to_string(regime));
  if (auto modes = intervals.child("modes", Presence::Required)) {
    MappingReader reader(*modes, parent.file(), intervals.path_of("modes"), parent.diagnostics());
    // A generation's own calibrated_family bounds (model::generation_mode_key), where validate wrote them.
    const std::string own_prefix = model::to_string(model::PredictionRegime::CalibratedFamily) + "@";
    std::vector<std::string> names = known;
    if (reader.valid())
      for (auto it = modes->begin(); it != modes->end(); ++it)
        if (it->first.Scalar().rfind(own_prefix, 0) == 0)
          names.push_back(it->first.Scalar());
    for (const auto& name : names)
      // Files written before the thin-family mode lack it: their families all count as calibrated.
      if (auto mode = reader.child(name, name == model::to_string(model::PredictionRegime::ThinlyCalibratedFamily) ||
                                                 name.find('@') != std::string::npos
                                             ? Presence::Optional
                                             : Presence::Required)) {
        MappingReader m(*mode, parent.file(), reader.path_of(name), parent.diagnostics());
        model::ResidualQuantiles q;
        q.low_log = m.number("low_log", -10, 10, Presence::Required).value_or(0);
        q.high_log = m.number("high_log", -10, 10, Presence::Required).value_or(0);
        q.results = static_cast<int>(m.integer("results", 0, 1'000'000, Presence::Required).value_or(0));
        q.coverage = m.number("coverage", 0, 1, Presence::Optional).value_or(0);
        q.parameter_log_sd = m.number("parameter_log_sd", 0, 10, Presence::Optional).value_or(0);
        q.distance_years = m.number("distance_years", 0, 10, Presence::Optional).value_or(0);
        if (q.low_log > q.high_log)
          m.error("high_log", "expected high_log >= low_log");
        for (auto pair_class : {model::PairClass::SameFamily, model::PairClass::OtherFamily}) {
          const std::string key = model::to_string(pair_class);
          auto pairs = m.child(key, Presence::Optional);
          if (!pairs)
            continue;
          MappingReader pr(*pairs, parent.file(), m.path_of(key), parent.diagnostics());
          model::PairQuantiles& pq = pair_class == model::PairClass::SameFamily ? q.same_family : q.other_family;
          pq.low_log = pr.number("low_log", -10, 10, Presence::Required).value_or(0);
          pq.high_log = pr.number("high_log", -10, 10, Presence::Required).value_or(0);
          pq.pairs = static_cast<int>(pr.integer("pairs", 0, 1'000'000'000, Presence::Required).value_or(0));
          pq.parameter_log_sd = pr.number("parameter_log_sd", 0, 10, Presence::Optional).value_or(0);
          if (pq.low_log > pq.high_log)
            pr.error("high_log", "expected high_log >= low_log");
          pr.finish();
        }
        m.finish();
        out.modes[name] = q;
      }
    reader.finish();
  }
  intervals.finish();
}

/// network_fit: {platform, rows, rms_log_error, evaluations, logs: [{file, op, ranks, hosts, rows, median_ape_pct}]}
void read_network_fit(MappingReader& parent, std::optional<model::NetworkFitSummary>& out)
{
  auto node = parent.child("network_fit", Presence::Optional);
  if (!node)
    return;
  MappingReader fit(*node, parent.file(), parent.path_of("network_fit"), parent.diagnostics());
  if (!fit.valid())
    return;
  model::NetworkFitSummary summary;
  summary.platform = fit.text("platform", Presence::Optional).value_or("");
  summary.rows = static_cast<int>(fit.integer("rows", 0, 100'000'000, Presence::Optional).value_or(0));
  summary.rms_log_error = fit.number("rms_log_error", 0, 1e6, Presence::Optional).value_or(0);
  summary.evaluations = static_cast<int>(fit.integer("evaluations", 0, 100'000'000, Presence::Optional).value_or(0));
  if (auto logs = fit.child("logs", Presence::Optional);
      logs && expect_sequence(*logs, parent.file(), fit.path_of("logs"), parent.diagnostics(), true))
    for (std::size_t i = 0; i < logs->size(); ++i) {
      MappingReader entry((*logs)[i], parent.file(), fit.path_of("logs") + "/" + std::to_string(i), parent.diagnostics());
      model::NetworkFitLog log;
      log.file = entry.text("file", Presence::Required).value_or("");
      log.op = entry.text("op", Presence::Required).value_or("");
      log.ranks = static_cast<int>(entry.integer("ranks", 1, 100'000'000, Presence::Optional).value_or(0));
      log.hosts = static_cast<int>(entry.integer("hosts", 1, 100'000'000, Presence::Optional).value_or(0));
      log.rows = static_cast<int>(entry.integer("rows", 0, 100'000'000, Presence::Optional).value_or(0));
      log.median_ape_pct = entry.number("median_ape_pct", 0, 1e9, Presence::Optional).value_or(0);
      entry.finish();
      summary.logs.push_back(log);
    }
  fit.finish();
  out = summary;
}

std::string quote(const std::string& text)
{
  std::string out = "\"";
  for (char c : text)
    out += c == '"' ? std::string("\\\"") : std::string(1, c);
  return out + "\"";
}

std::string format_value(const model::CalibratedValue& v, bool seconds)
{
  std::string text = seconds ? fmt::format("{{value: \"{:.6g} s\", standard_error: \"{:.3g} s\"", v.value, v.standard_error)
                             : fmt::format("{{value: {:.6g}, standard_error: {:.3g}", v.value, v.standard_error);
  text += fmt::format(", results: {}, identified: {}", v.results, v.identified ? "true" : "false");
  if (!v.note.empty())
    text += ", note: " + quote(v.note);
  return text + "}";
}

template <class Key>
void format_group(std::string& out, const std::string& key, const std::map<Key, model::CalibratedValue>& group,
                  bool seconds)
{
  if (group.empty()) // an empty group would read back as a key without a mapping
    return;
  out += "  " + key + ":\n";
  for (const auto& [name, value] : group)
    out += "    " + model::key_text(name) + ": " + format_value(value, seconds) + "\n";
}

} // namespace

model::Calibration read_calibration_text(const std::string& text, const std::string& display_name)
{
  Diagnostics diagnostics;
  model::Calibration calibration;
  if (auto root = load_yaml_text(text, display_name, diagnostics)) {
    MappingReader top(*root, display_name, "", diagnostics);
    if (auto node = top.child("calibration", Presence::Required)) {
      MappingReader c(*node, display_name, "/calibration", diagnostics);
      auto& summary = calibration.summary;
      summary.command = c.text("command", Presence::Optional).value_or("");
      summary.data = c.text("data", Presence::Optional).value_or("");
      summary.results = static_cast<int>(c.integer("results", 0, 1'000'000, Presence::Optional).value_or(0));
      summary.fit_median_ape_pct = c.number("fit_median_ape_pct", 0, 1e6, Presence::Optional).value_or(0);
      summary.loso_median_ape_pct = c.number("loso_median_ape_pct", 0, 1e6, Presence::Optional).value_or(0);
      summary.surrogate_max_abs_diff_pct =
          c.number("surrogate_max_abs_diff_pct", 0, 1e6, Presence::Optional).value_or(0);
      model::Calibration::for_each_group(calibration, [&](const char* key, auto& values, bool seconds) {
        read_group(c, key, seconds, values);
      });
      check_maturity(c, calibration);
      read_software_reference_date(c, calibration);
      read_batch_sizes(c, calibration.batch_sizes);
      read_convergence_factors(c, calibration.convergence_factors);
      read_intervals(c, calibration.intervals);
      read_network_fit(c, calibration.network_fit);
      c.finish();
    }
    top.finish();
  }
  diagnostics.throw_if_any();
  return calibration;
}

model::Calibration read_calibration(const std::string& path)
{
  Diagnostics diagnostics;
  const auto text = read_text_file(path, diagnostics);
  diagnostics.throw_if_any();
  return read_calibration_text(*text, path);
}

std::string format_calibration(const model::Calibration& calibration)
{
  const auto& s = calibration.summary;
  std::string out =
      "# gpuscale calibration against MLPerf Training results, written by `gpuscale calibrate`; do not edit by hand.\n"
      "# What each parameter is and why it is there: docs/CALIBRATION.md. standard_error: 1-sigma from the\n"
      "# Gauss-Newton covariance of the log-time residuals; identified: false where the data cannot pin it down.\n"
      "# Scenarios without `efficiency:` run with this file (embedded in the binary at build time).\n"
      "calibration:\n";
  out += "  command: " + quote(s.command) + "\n";
  out += "  data: " + quote(s.data) + "\n";
  out += fmt::format("  results: {}\n  fit_median_ape_pct: {:.3f}\n  loso_median_ape_pct: {:.3f}\n"
                     "  surrogate_max_abs_diff_pct: {:.3f}\n",
                     s.results, s.fit_median_ape_pct, s.loso_median_ape_pct, s.surrogate_max_abs_diff_pct);
  model::Calibration::for_each_group(calibration, [&](const char* key, const auto& values, bool seconds) {
    format_group(out, key, values, seconds);
  });
  if (calibration.software_reference_date)
    out += "  software_reference_date: \"" + model::to_string(*calibration.software_reference_date) + "\"\n";
  out += "  batch_sizes:\n";
  for (const auto& r : calibration.batch_sizes)
    out += fmt::format("    - {{benchmark: {}, accelerators: {}, global_batch_size: {}, results: {}}}\n",
                       model::to_string(r.benchmark), r.accelerators, r.global_batch_size, r.results);
  if (!calibration.convergence_factors.empty()) {
    out += "  # Scored samples over the convergence table's, the median over the results (per benchmark, and per\n"
           "  # global batch size run by at least 3): measured from the logs, not fitted (docs/CALIBRATION.md).\n"
           "  convergence_factors:\n";
    for (const auto& f : calibration.convergence_factors)
      out += f.global_batch_size > 0
                 ? fmt::format("    - {{benchmark: {}, global_batch_size: {}, factor: {:.6g}, results: {}}}\n",
                               model::to_string(f.benchmark), f.global_batch_size, f.factor, f.results)
                 : fmt::format("    - {{benchmark: {}, factor: {:.6g}, results: {}}}\n", model::to_string(f.benchmark),
                               f.factor, f.results);
  }
  const auto& intervals = calibration.intervals;
  if (intervals.empty())
    return out;
  out += "  # Prediction intervals: split-conformal 80 % bounds of log(actual / predicted) of left-out results per\n"
         "  # validation mode (sim/model/PredictionInterval.hpp); coverage: of 80 % intervals built without\n"
         "  # the result's own system; parameter_log_sd: largest log-sd from the standard errors above;\n"
         "  # distance_years: how far ahead later_round predicted (from the latest round fitted on); same_family,\n"
         "  # other_family: the same bounds of r_i - r_j over ordered pairs of one benchmark's results, on one\n"
         "  # family or two (the ratio of two options, model::ratio_log_bounds).\n"
         "  intervals:\n    families: [";
  for (std::size_t i = 0; i < intervals.families.size(); ++i)
    out += (i == 0 ? "" : ", ") + intervals.families[i];
  out += "]\n    calibrated_accelerators: {";
  bool first = true;
  for (const auto& [benchmark, n] : intervals.calibrated_accelerators) {
    out += fmt::format("{}{}: {}", first ? "" : ", ", model::to_string(benchmark), n);
    first = false;
  }
  out += "}\n";
  if (!intervals.family_results.empty()) {
    out += "    family_results:\n";
    for (const auto& [family, by_benchmark] : intervals.family_results) {
      out += "      " + family + ": {";
      bool first_benchmark = true;
      for (const auto& [benchmark, n] : by_benchmark) {
        out += fmt::format("{}{}: {}", first_benchmark ? "" : ", ", model::to_string(benchmark), n);
        first_benchmark = false;
      }
      out += "}\n";
    }
  }
  out += "    modes:\n";
  std::vector<std::string> names;
  for (auto regime : model::all_prediction_regimes()) {
    names.push_back(model::to_string(regime));
    for (const auto& key : model::generation_mode_keys(intervals, regime))
      names.push_back(key);
  }
  for (const auto& name : names) {
    const auto it = intervals.modes.find(name);
    if (it == intervals.modes.end())
      continue;
    const auto& q = it->second;
    const std::string distance = q.distance_years > 0 ? fmt::format(", distance_years: {:.4f}", q.distance_years) : "";
    std::string pairs;
    for (auto pair_class : {model::PairClass::SameFamily, model::PairClass::OtherFamily})
      if (const auto& pq = q.pairs(pair_class); pq.pairs > 0)
        pairs += fmt::format(",\n        {}: {{low_log: {:.5f}, high_log: {:.5f}, pairs: {}, parameter_log_sd: {:.5f}}}",
                             model::to_string(pair_class), pq.low_log, pq.high_log, pq.pairs, pq.parameter_log_sd);
    out += fmt::format("      {}: {{low_log: {:.5f}, high_log: {:.5f}, results: {}, coverage: {:.3f}, parameter_log_sd: {:.5f}{}{}}}\n",
                       it->first, q.low_log, q.high_log, q.results, q.coverage, q.parameter_log_sd, distance, pairs);
  }
  return out;
}

std::string format_network_calibration(const model::Calibration& calibration)
{
  const auto& s = calibration.summary;
  std::string out =
      "# gpuscale network calibration: link fractions and collective costs fitted to a cluster's nccl-tests logs,\n"
      "# written by `gpuscale calibrate-network`; docs/COLLECTIVES.md says what each parameter is. standard_error:\n"
      "# 1-sigma from the Gauss-Newton covariance of the log-time residuals; identified: false at a bound or\n"
      "# where the logs barely constrain it. Use: scenario key `network_calibration: FILE`, or\n"
      "# `gpuscale nccl-tests --network-calibration FILE`; each value replaces the committed one of its key.\n"
      "calibration:\n";
  out += "  command: " + quote(s.command) + "\n";
  out += "  data: " + quote(s.data) + "\n";
  if (const auto& fit = calibration.network_fit) {
    out += fmt::format("  network_fit:\n    platform: {}\n    rows: {}\n    rms_log_error: {:.5f}\n    evaluations: {}\n"
                       "    logs:\n",
                       quote(fit->platform), fit->rows, fit->rms_log_error, fit->evaluations);
    for (const auto& log : fit->logs)
      out += fmt::format("      - {{file: {}, op: {}, ranks: {}, hosts: {}, rows: {}, median_ape_pct: {:.3f}}}\n",
                         quote(log.file), log.op, log.ranks, log.hosts, log.rows, log.median_ape_pct);
  }
  format_group(out, "network", calibration.network, false);
  format_group(out, "collective", calibration.collective_s, true);
  return out;
}

const model::Calibration& default_calibration()
{
  static const model::Calibration calibration =
      read_calibration_text(embedded_calibration_text(), "calibration/mlperf.yaml (embedded)");
  return calibration;
}

} // namespace gpuscale::config
