#define CATCH_CONFIG_RUNNER
#include "tests/support/TestSkip.hpp"

/// Catch's own main, except that a run without failures in which a test case skipped exits with the
/// skip code, so CTest reports that test as skipped rather than passed.
int main(int argc, char* argv[])
{
  const int failures = Catch::Session().run(argc, argv);
  if (failures == 0 && gpuscale::test::test_skipped())
    return gpuscale::test::kSkipReturnCode;
  return failures;
}
