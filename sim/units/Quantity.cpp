#include "sim/units/Quantity.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace gpuscale::units {
namespace {

struct UnitEntry {
  std::string_view suffix;
  double factor; // multiply the number by this to get SI
};

constexpr double kKi = 1024.0;

constexpr std::array kByteUnits{
    UnitEntry{"B", 1.0},          UnitEntry{"kB", 1e3},          UnitEntry{"MB", 1e6},
    UnitEntry{"GB", 1e9},         UnitEntry{"TB", 1e12},         UnitEntry{"KiB", kKi},
    UnitEntry{"MiB", kKi * kKi},  UnitEntry{"GiB", kKi * kKi * kKi}, UnitEntry{"TiB", kKi * kKi * kKi * kKi},
};

constexpr std::array kBandwidthUnits{
    UnitEntry{"B/s", 1.0},         UnitEntry{"kB/s", 1e3},          UnitEntry{"MB/s", 1e6},
    UnitEntry{"GB/s", 1e9},        UnitEntry{"TB/s", 1e12},         UnitEntry{"KiB/s", kKi},
    UnitEntry{"MiB/s", kKi * kKi}, UnitEntry{"GiB/s", kKi * kKi * kKi},
    UnitEntry{"b/s", 1.0 / 8},     UnitEntry{"kb/s", 1e3 / 8},      UnitEntry{"Mb/s", 1e6 / 8},
    UnitEntry{"Gb/s", 1e9 / 8},    UnitEntry{"Tb/s", 1e12 / 8},     UnitEntry{"bit/s", 1.0 / 8},
    UnitEntry{"kbit/s", 1e3 / 8},  UnitEntry{"Mbit/s", 1e6 / 8},    UnitEntry{"Gbit/s", 1e9 / 8},
    UnitEntry{"Tbit/s", 1e12 / 8},
};

constexpr std::array kFlopUnits{
    UnitEntry{"FLOP", 1.0},  UnitEntry{"kFLOP", 1e3},  UnitEntry{"MFLOP", 1e6},
    UnitEntry{"GFLOP", 1e9}, UnitEntry{"TFLOP", 1e12}, UnitEntry{"PFLOP", 1e15},
};

constexpr std::array kFlopRateUnits{
    UnitEntry{"FLOP/s", 1.0},  UnitEntry{"kFLOP/s", 1e3},  UnitEntry{"MFLOP/s", 1e6},
    UnitEntry{"GFLOP/s", 1e9}, UnitEntry{"TFLOP/s", 1e12}, UnitEntry{"PFLOP/s", 1e15},
};

constexpr std::array kTimeUnits{
    UnitEntry{"s", 1.0}, UnitEntry{"ms", 1e-3}, UnitEntry{"us", 1e-6}, UnitEntry{"ns", 1e-9},
    UnitEntry{"min", 60.0}, UnitEntry{"h", 3600.0},
};

constexpr std::array kPowerUnits{UnitEntry{"W", 1.0}, UnitEntry{"kW", 1e3}};
constexpr std::array kPriceUnits{UnitEntry{"USD/h", 1.0}};

template <std::size_t N>
std::pair<const UnitEntry*, std::size_t> as_span(const std::array<UnitEntry, N>& units)
{
  return {units.data(), units.size()};
}

std::pair<const UnitEntry*, std::size_t> units_of(Dimension dimension)
{
  switch (dimension) {
    case Dimension::Bytes: return as_span(kByteUnits);
    case Dimension::BytesPerSecond: return as_span(kBandwidthUnits);
    case Dimension::Flop: return as_span(kFlopUnits);
    case Dimension::FlopPerSecond: return as_span(kFlopRateUnits);
    case Dimension::Seconds: return as_span(kTimeUnits);
    case Dimension::Watts: return as_span(kPowerUnits);
    case Dimension::UsdPerHour: return as_span(kPriceUnits);
  }
  return {nullptr, 0};
}

std::string known_units(Dimension dimension)
{
  auto [units, count] = units_of(dimension);
  std::string list;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0)
      list += ", ";
    list += units[i].suffix;
  }
  return list;
}

std::string_view trim(std::string_view text)
{
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

} // namespace

std::string dimension_description(Dimension dimension)
{
  switch (dimension) {
    case Dimension::Bytes: return "a data size such as \"80 GiB\"";
    case Dimension::BytesPerSecond: return "a bandwidth such as \"400 Gb/s\" or \"900 GB/s\"";
    case Dimension::Flop: return "an amount of computation such as \"4.1 GFLOP\"";
    case Dimension::FlopPerSecond: return "a compute rate such as \"989 TFLOP/s\"";
    case Dimension::Seconds: return "a duration such as \"1 us\"";
    case Dimension::Watts: return "a power such as \"700 W\"";
    case Dimension::UsdPerHour: return "a price such as \"2.50 USD/h\"";
  }
  return "a quantity";
}

double parse_quantity(std::string_view text, Dimension dimension)
{
  const std::string_view trimmed = trim(text);
  // The number ends at the first space, or, written without one ("900GB/s"), where a number can no
  // longer continue: from_chars stops there, before the unit's first letter.
  std::size_t split = trimmed.find(' ');
  if (split == std::string_view::npos) {
    double ignored = 0.0;
    const auto [end, error] = std::from_chars(trimmed.data(), trimmed.data() + trimmed.size(), ignored);
    if (error != std::errc())
      throw UnitError("expected " + dimension_description(dimension) + ", got '" + std::string(text) +
                      "' (it does not start with a number)");
    split = static_cast<std::size_t>(end - trimmed.data());
  }
  if (split >= trimmed.size())
    throw UnitError("expected " + dimension_description(dimension) + ", got '" + std::string(text) +
                    "' (a number needs an explicit unit)");
  const std::string_view number_text = trimmed.substr(0, split);
  const std::string_view unit_text = trim(trimmed.substr(split));

  double value = 0.0;
  const auto [end, error] = std::from_chars(number_text.data(), number_text.data() + number_text.size(), value);
  if (error != std::errc() || end != number_text.data() + number_text.size())
    throw UnitError("expected " + dimension_description(dimension) + ", got '" + std::string(text) +
                    "' ('" + std::string(number_text) + "' is not a number)");
  if (!std::isfinite(value))
    throw UnitError("expected a finite value, got '" + std::string(text) + "'");
  if (value < 0)
    throw UnitError("expected a non-negative value, got '" + std::string(text) + "'");

  auto [units, count] = units_of(dimension);
  for (std::size_t i = 0; i < count; ++i) {
    if (units[i].suffix == unit_text) {
      const double si = value * units[i].factor;
      if (!std::isfinite(si))
        throw UnitError("value out of range: '" + std::string(text) + "'");
      return si;
    }
  }
  throw UnitError("unknown unit '" + std::string(unit_text) + "' in '" + std::string(text) + "' (expected " +
                  dimension_description(dimension) + "; units: " + known_units(dimension) + ")");
}

std::string format_bytes(double bytes)
{
  static constexpr std::array kNames{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t index = 0;
  double value = bytes;
  while (std::fabs(value) >= 1024.0 && index + 1 < kNames.size()) {
    value /= 1024.0;
    ++index;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, index == 0 ? "%.0f %s" : "%.2f %s", value, kNames[index]);
  return buffer;
}

std::string format_seconds(double seconds)
{
  char buffer[64];
  if (seconds < 1e-3)
    std::snprintf(buffer, sizeof buffer, "%.2f us", seconds * 1e6);
  else if (seconds < 1.0)
    std::snprintf(buffer, sizeof buffer, "%.2f ms", seconds * 1e3);
  else if (seconds < 120.0)
    std::snprintf(buffer, sizeof buffer, "%.3f s", seconds);
  else
    std::snprintf(buffer, sizeof buffer, "%.2f min", to_minutes(seconds));
  return buffer;
}

} // namespace gpuscale::units
