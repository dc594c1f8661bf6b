#pragma once
/// The RCP scaling factor of an MLPerf Training entry: what MLCommons multiplies its olympic score by
/// when the runs converged in fewer samples than the reference convergence points allow
/// (mlperf_logging's rcp_checker writes it to <benchmark folder>/scaling.json as
/// {"scaling_factor": x}; result_summarizer multiplies the score by it; 1 when the file is absent).
/// The scaled score is the figure MLCommons publishes.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuscale::config {

/// Smallest and largest factor accepted: the checker only ever scales a score up, and a factor
/// beyond 2 would mean a submission converging in half the reference samples.
inline constexpr double kMinRcpScaling = 1.0;
inline constexpr double kMaxRcpScaling = 2.0;

/// One CSV line's fields (RFC 4180: a quoted field may hold commas, "" is one quote; a trailing
/// carriage return is dropped) and the 1-based column each starts at.
struct CsvRecord {
  std::vector<std::string> fields;
  std::vector<int> columns;
};
/// nullopt when a quote is left open.
std::optional<CsvRecord> parse_csv_record(const std::string& line);

/// The factor of a scaling.json. Throws ConfigError, located: not JSON, no number `scaling_factor`,
/// or one outside [kMinRcpScaling, kMaxRcpScaling].
double read_mlperf_scaling_json(const std::string& path);

/// The factors of a scores table in gpuscale's shared layout (DIR/scores_calibration.csv, which
/// carries them for results whose scaling.json was not copied): column rcp_scaling_factor by
/// "round/submitter/system/benchmark" (benchmark as gpuscale names it). Fields follow RFC 4180
/// (quoted fields may hold commas and doubled quotes). An empty factor reads as 1. Throws
/// ConfigError, located at the line (and column name): a missing column, a row with the wrong number
/// of fields, a factor that is not a number in range.
std::map<std::string, double> read_scores_table_scaling(const std::string& path);

} // namespace gpuscale::config
