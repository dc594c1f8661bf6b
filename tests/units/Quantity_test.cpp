#include "sim/units/Quantity.hpp"

#include <catch2/catch.hpp>

using gpuscale::units::Dimension;
using gpuscale::units::parse_quantity;
using gpuscale::units::UnitError;

TEST_CASE("units::parse_quantity converts decimal and binary prefixes to SI", "[units]")
{
  CHECK(parse_quantity("80 GiB", Dimension::Bytes) == 80.0 * 1024 * 1024 * 1024);
  CHECK(parse_quantity("80 GB", Dimension::Bytes) == 80e9);
  CHECK(parse_quantity("25 MB", Dimension::Bytes) == 25e6);
  CHECK(parse_quantity("400 Gb/s", Dimension::BytesPerSecond) == 50e9);
  CHECK(parse_quantity("900 GB/s", Dimension::BytesPerSecond) == 900e9);
  CHECK(parse_quantity("989.4 TFLOP/s", Dimension::FlopPerSecond) == Approx(989.4e12).epsilon(1e-15));
  CHECK(parse_quantity("4.1e9 FLOP", Dimension::Flop) == 4.1e9);
  CHECK(parse_quantity("1 us", Dimension::Seconds) == 1e-6);
  CHECK(parse_quantity("700 W", Dimension::Watts) == 700.0);
  CHECK(parse_quantity("2.5 USD/h", Dimension::UsdPerHour) == 2.5);
}

TEST_CASE("units::parse_quantity reads a quantity written without the space before its unit", "[units]")
{
  CHECK(parse_quantity("900GB/s", Dimension::BytesPerSecond) == 900e9);
  CHECK(parse_quantity("400Gb/s", Dimension::BytesPerSecond) == 50e9);
  CHECK(parse_quantity("80GiB", Dimension::Bytes) == 80.0 * 1024 * 1024 * 1024);
  CHECK(parse_quantity("1.5us", Dimension::Seconds) == Approx(1.5e-6).epsilon(1e-15));
  CHECK(parse_quantity("4.1e9FLOP", Dimension::Flop) == 4.1e9);
  CHECK(parse_quantity(" 2h ", Dimension::Seconds) == 7200.0);
  CHECK_THROWS_WITH(parse_quantity("900GB", Dimension::BytesPerSecond), Catch::Contains("unknown unit 'GB' in '900GB'"));
  CHECK_THROWS_WITH(parse_quantity("eightGiB", Dimension::Bytes),
                    "expected a data size such as \"80 GiB\", got 'eightGiB' (it does not start with a number)");
  CHECK_THROWS_WITH(parse_quantity("-5GB/s", Dimension::BytesPerSecond), "expected a non-negative value, got '-5GB/s'");
  CHECK_THROWS_AS(parse_quantity("nanGiB", Dimension::Bytes), UnitError);
  CHECK_THROWS_AS(parse_quantity("infGB/s", Dimension::BytesPerSecond), UnitError);
}

TEST_CASE("units::parse_quantity rejects bare numbers, wrong units and negative values", "[units]")
{
  CHECK_THROWS_WITH(parse_quantity("80", Dimension::Bytes),
                    "expected a data size such as \"80 GiB\", got '80' (a number needs an explicit unit)");
  CHECK_THROWS_WITH(parse_quantity("80 GB/s", Dimension::Bytes), Catch::Contains("unknown unit 'GB/s'"));
  CHECK_THROWS_WITH(parse_quantity("-5 GB/s", Dimension::BytesPerSecond),
                    "expected a non-negative value, got '-5 GB/s'");
  CHECK_THROWS_WITH(parse_quantity("eight GiB", Dimension::Bytes), Catch::Contains("'eight' is not a number"));
  CHECK_THROWS_AS(parse_quantity("nan GiB", Dimension::Bytes), UnitError);
  CHECK_THROWS_AS(parse_quantity("1e400 B", Dimension::Bytes), UnitError);
}
