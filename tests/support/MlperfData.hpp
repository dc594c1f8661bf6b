#pragma once
/// Where the real MLPerf data is for tests that need it: $GPUSCALE_MLPERF_DIR, else ../shared/mlperf
/// next to the repository. Absent: the test is skipped (CTest shows it as skipped, with the reason),
/// unless GPUSCALE_REQUIRE_MLPERF=1 (CI), where it fails.

#include "tests/support/TestSkip.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace gpuscale::test {

inline std::optional<std::string> mlperf_dir()
{
  const char* env = std::getenv("GPUSCALE_MLPERF_DIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : std::string(GPUSCALE_SOURCE_DIR) + "/../shared/mlperf";
  if (std::filesystem::is_regular_file(dir + "/scores_calibration.csv"))
    return dir;
  const char* required = std::getenv("GPUSCALE_REQUIRE_MLPERF");
  if (required != nullptr && std::string(required) == "1")
    FAIL("MLPerf data required (GPUSCALE_REQUIRE_MLPERF=1) but not found at " + dir);
  skip_test("no MLPerf data at " + dir + " (set GPUSCALE_MLPERF_DIR)");
  return std::nullopt;
}

} // namespace gpuscale::test
