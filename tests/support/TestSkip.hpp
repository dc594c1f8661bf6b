#pragma once
/// Catch2 v2 has no "skipped" outcome: a test case that cannot run here calls skip_test(reason), which
/// prints the reason, and the test runner (tests/test_main.cpp) then exits with kSkipReturnCode, which
/// CTest's SKIP_RETURN_CODE shows as "Skipped" (each CTest test runs one test case in its own process).

#include <catch2/catch.hpp>

#include <string>

namespace gpuscale::test {

/// The automake convention for "skipped", as CTest's SKIP_RETURN_CODE in tests/CMakeLists.txt.
inline constexpr int kSkipReturnCode = 77;

/// Whether a test case of this process called skip_test.
inline bool& test_skipped()
{
  static bool skipped = false;
  return skipped;
}

/// Marks the running test case skipped and prints why; the caller returns from the test case.
inline void skip_test(const std::string& reason)
{
  test_skipped() = true;
  WARN("SKIPPED: " + reason);
}

} // namespace gpuscale::test
