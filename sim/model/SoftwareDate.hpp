#pragma once
/// The date of the software a training run used (framework, libraries, kernels), as a decimal year:
/// the calibration's software maturity (SoftwareMaturity.hpp) moves kernel efficiencies with it.
///
/// Written as a calendar date ("2025-06" = 2025-06-01, "2025-06-15") or as an MLPerf Training round
/// ("v5.0"). A round stands for the month its submitters ran their software: vM.0 -> 1 May of
/// 2020 + M, vM.1 -> 1 October of 2020 + M (v3.0 2023-05, v3.1 2023-10, v4.0 2024-05, v4.1 2024-10,
/// v5.0 2025-05): the rounds are published in June and November, and the median first-run date of
/// shared/mlperf's results per round is 2023-05-08, 2023-09-27, 2024-04-30, 2024-10-05.

#include <optional>
#include <string>
#include <string_view>

namespace gpuscale::model {

struct SoftwareDate {
  double year = 0; ///< decimal year: 2024.0 is 2024-01-01 00:00 UTC, 2024.5 about 2 July 2024

  auto operator<=>(const SoftwareDate&) const = default;
};

/// The date of a calendar day (days of the year counted from 1 January, over 365 or 366 days).
SoftwareDate software_date_of(int year, unsigned month, unsigned day);

/// The date of a Unix time in milliseconds (the MLLOG `time_ms` of a run_start), UTC.
SoftwareDate software_date_from_unix_ms(double ms);

/// "YYYY-MM", "YYYY-MM-DD" (years 1990-2100) or an MLPerf round "vM.0" / "vM.1" (M 1-20); nullopt
/// otherwise.
std::optional<SoftwareDate> parse_software_date(std::string_view text);

/// The software date a round stands for ("v4.1" -> 2024-10-01); nullopt for a name that is not
/// "vM.0" or "vM.1".
std::optional<SoftwareDate> mlperf_round_date(std::string_view round);

/// "YYYY-MM-DD" (the day containing the date).
std::string to_string(SoftwareDate date);

/// What parse_software_date accepts, for error messages.
inline constexpr const char* kSoftwareDateForms = "a date 'YYYY-MM' or 'YYYY-MM-DD', or an MLPerf round 'vM.0' / 'vM.1'";

} // namespace gpuscale::model
