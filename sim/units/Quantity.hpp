#pragma once
/// The one unit parser. Every dimensioned value enters gpuscale as a string with an explicit unit
/// ("900 GB/s", "80 GiB", "989 TFLOP/s") and leaves this file as an SI double
/// (bytes, bytes/s, flop, flop/s, seconds, watts, US dollars per hour).

#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuscale::units {

/// What a quantity measures; decides which unit suffixes are accepted.
enum class Dimension { Bytes, BytesPerSecond, Flop, FlopPerSecond, Seconds, Watts, UsdPerHour };

/// Human name of a dimension, used in error messages ("a data size such as \"80 GiB\"").
std::string dimension_description(Dimension dimension);

/// Thrown when a quantity string is malformed or has a unit of the wrong dimension.
class UnitError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Parses "<number> <unit>" into SI units of `dimension`. Decimal prefixes are powers of 1000,
/// binary prefixes (KiB, MiB, GiB, TiB) powers of 1024; "b/s" and "bit/s" are bits (÷ 8).
/// Rejects bare numbers, unknown units, negative values, NaN and infinity.
double parse_quantity(std::string_view text, Dimension dimension);

/// Seconds per minute. Time is seconds everywhere inside; minutes appear only where a report, a
/// results column (time_to_train_min, ...) or a file field gives them.
inline constexpr double kSecondsPerMinute = 60.0;
/// `seconds` as minutes, for a report, a results column or a file field that gives minutes.
constexpr double to_minutes(double seconds) { return seconds / kSecondsPerMinute; }
/// `minutes` read from a results column or a file field, as seconds.
constexpr double from_minutes(double minutes) { return minutes * kSecondsPerMinute; }

/// Formats bytes with a binary prefix for reports ("1.50 GiB").
std::string format_bytes(double bytes);

/// Formats seconds with a readable unit ("12.3 ms", "4.56 s", "7.8 min").
std::string format_seconds(double seconds);

} // namespace gpuscale::units
