"""Where the real MLPerf data is for the command-line test scripts that need it: $GPUSCALE_MLPERF_DIR,
else ../shared/mlperf next to the repository. Absent, the script exits with the skip code CTest reports
as "Skipped" (SKIP_RETURN_CODE in tests/CMakeLists.txt), after printing why; with
GPUSCALE_REQUIRE_MLPERF=1 (CI) it fails instead."""

import os
import sys

SKIP_RETURN_CODE = 77


def mlperf_data_dir(source_dir, needed):
    """The data folder, if `needed` (a path inside it) exists; otherwise the script ends here."""
    mlperf = os.environ.get("GPUSCALE_MLPERF_DIR") or os.path.join(source_dir, "..", "shared", "mlperf")
    if os.path.exists(os.path.join(mlperf, needed)):
        return mlperf
    if os.environ.get("GPUSCALE_REQUIRE_MLPERF") == "1":
        print("FAILED: MLPerf data required (GPUSCALE_REQUIRE_MLPERF=1) but %s is missing in %s" % (needed, mlperf))
        sys.exit(1)
    print("SKIPPED: no MLPerf data at %s (%s missing; set GPUSCALE_MLPERF_DIR)" % (mlperf, needed))
    sys.exit(SKIP_RETURN_CODE)
