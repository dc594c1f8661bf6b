#!/usr/bin/python3
"""A test that needs the MLPerf data and finds none exits with the skip code (77) and says why, in C++
(Catch2 through tests/test_main.cpp) and in Python (tests/support/mlperf_data.py); with
GPUSCALE_REQUIRE_MLPERF=1 the same test fails instead; `./run test`'s summary names skipped tests
with their reason. Usage: skipped_tests_test.py BUILD_DIR SOURCE_DIR"""

import os
import subprocess
import sys
import tempfile

build_dir, source_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check

with tempfile.TemporaryDirectory() as tmp:
    missing = os.path.join(tmp, "no-mlperf-here")
    skipping = dict(os.environ, GPUSCALE_MLPERF_DIR=missing)
    skipping.pop("GPUSCALE_REQUIRE_MLPERF", None)
    requiring = dict(skipping, GPUSCALE_REQUIRE_MLPERF="1")
    commands = {
        "C++": [os.path.join(build_dir, "tests", "mlperf_tests"),
                "config::read_mlperf_repository agrees with scores_calibration.csv on every row"],
        "Python": ["/usr/bin/python3", os.path.join(source_dir, "tests", "app", "calibration_accuracy_test.py"),
                   build_dir, source_dir],
    }
    for language, command in commands.items():
        skipped = subprocess.run(command, env=skipping, capture_output=True, text=True)
        check(skipped.returncode == 77, "%s: exit 77 without the data, got %d" % (language, skipped.returncode))
        check("SKIPPED: no MLPerf data at " + missing in skipped.stdout, language + ": the reason is printed:\n" +
              skipped.stdout)
        required = subprocess.run(command, env=requiring, capture_output=True, text=True)
        check(required.returncode not in (0, 77), "%s: GPUSCALE_REQUIRE_MLPERF=1 fails, got %d" %
              (language, required.returncode))

    junit = os.path.join(tmp, "junit.xml")
    with open(junit, "w") as f:
        f.write('<?xml version="1.0"?>\n<testsuite>\n'
                '<testcase name="a passes" status="run"><system-out>All tests passed</system-out></testcase>\n'
                '<testcase name="b needs data" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>'
                '<system-out>warning:\n  SKIPPED: no MLPerf data at /x; set\n  GPUSCALE_MLPERF_DIR\n\n'
                '</system-out></testcase>\n</testsuite>\n')
    summary = subprocess.run(["/usr/bin/python3", os.path.join(source_dir, "tests", "support",
                                                               "report_skipped_tests.py"), junit],
                             capture_output=True, text=True)
    check(summary.stdout == "run: 1 test skipped:\n  b needs data\n      no MLPerf data at /x; set GPUSCALE_MLPERF_DIR\n",
          "the summary names the skipped test and its reason:\n" + summary.stdout + summary.stderr)
tally.finish()
