#include "sim/model/SoftwareDate.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <regex>

namespace gpuscale::model {
namespace {

using namespace std::chrono;

double days_since_epoch(year_month_day ymd)
{
  return static_cast<double>(sys_days(ymd).time_since_epoch().count());
}

SoftwareDate from_days(double days)
{
  const auto day = sys_days(std::chrono::days(static_cast<long long>(std::floor(days))));
  const year_month_day ymd(day);
  const double start = days_since_epoch(ymd.year() / January / 1);
  const double end = days_since_epoch((ymd.year() + years(1)) / January / 1);
  return {static_cast<int>(ymd.year()) + (days - start) / (end - start)};
}

} // namespace

SoftwareDate software_date_of(int y, unsigned m, unsigned d)
{
  return from_days(days_since_epoch(year(y) / month(m) / day(d)));
}

SoftwareDate software_date_from_unix_ms(double ms)
{
  return from_days(ms / 86'400'000.0);
}

std::optional<SoftwareDate> mlperf_round_date(std::string_view round)
{
  static const std::regex pattern(R"(v([0-9]{1,2})\.([01]))");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(round.begin(), round.end(), m, pattern))
    return std::nullopt;
  const int major = std::stoi(m[1].str());
  if (major < 1 || major > 20)
    return std::nullopt;
  return software_date_of(2020 + major, m[2].str() == "0" ? 5u : 10u, 1);
}

std::optional<SoftwareDate> parse_software_date(std::string_view text)
{
  if (auto round = mlperf_round_date(text))
    return round;
  static const std::regex pattern(R"(([0-9]{4})-([0-9]{2})(-([0-9]{2}))?)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_match(text.begin(), text.end(), m, pattern))
    return std::nullopt;
  const int y = std::stoi(m[1].str());
  const auto mo = static_cast<unsigned>(std::stoi(m[2].str()));
  const auto d = m[4].matched ? static_cast<unsigned>(std::stoi(m[4].str())) : 1u;
  const year_month_day ymd{year(y), month(mo), day(d)};
  if (y < 1990 || y > 2100 || !ymd.ok())
    return std::nullopt;
  return software_date_of(y, mo, d);
}

std::string to_string(SoftwareDate date)
{
  const int y = static_cast<int>(std::floor(date.year));
  const double start = days_since_epoch(year(y) / January / 1);
  const double end = days_since_epoch(year(y + 1) / January / 1);
  // Half a second into the day guards the floor against rounding of the decimal year.
  const double days = start + (date.year - y) * (end - start) + 0.5 / 86400.0;
  const year_month_day ymd(sys_days(std::chrono::days(static_cast<long long>(std::floor(days)))));
  char text[16];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()));
  return text;
}

} // namespace gpuscale::model
