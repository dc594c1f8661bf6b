#!/usr/bin/python3
"""Impossible measurements: `calibrate-network` refuses nccl-tests logs that cannot be measurements, with
the file, the row's line and the rule, exit 2, and writes nothing (config/NcclTestsPlausibility.hpp):
one 8-byte row, one row of 1e300 us, three sizes, a time under 1 us, 8 GiB in 10 us (beyond 18 TB/s),
an hour and more. Every log of the fixtures still fits. (The MLPerf import's rules, runs faster than
possible and logs of another benchmark, are in tests/data/invalid/mlperf_logs/.)
Usage: implausible_measurements_test.py BUILD_DIR SOURCE_DIR"""

import os
import subprocess
import sys
import tempfile

build_dir, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check
platform = os.path.join(source_dir, "platforms", "dgx-h100-1node.yaml")
fixture = os.path.join(source_dir, "tests", "data", "nccl-tests", "all_reduce_1node_8xh100.txt")
with open(fixture) as f:
    lines = f.read().splitlines(True)
header = [line for line in lines[:16]]  # command, nThread line, devices, column headers
rows = [line for line in lines if line.split() and line.split()[0].isdigit()]
HEADER_LINES = len(header)


def row(size, time_us):
    algbw = min(size / (float(time_us) * 1e-6) / 1e9, 1e6)
    return "%12d %13d     float     sum      -1 %8s %7.2f %7.2f      0 %8s %7.2f %7.2f      0\n" % (
        size, size // 4, time_us, algbw, algbw * 1.75, time_us, algbw, algbw * 1.75)


TOO_FEW = ("{file}: error: /rows: too few points: {n} message size(s) with a time above 0; a fit needs at least 4 "
           "(a fixed cost and a bandwidth, with sizes to spare; nccl-tests -b 8 -e 128M -f 2 prints 25)")


def slow(index, time_us, size):
    return ("{file}:%d:1: error: /rows/%d/time: implausible time %s us for %d bytes: a collective takes between 1 us "
            "and 3600 s (a kernel launch at least; nccl-tests' largest size over 1 Gb/s Ethernet at most); is the "
            "column in microseconds?" % (HEADER_LINES + 1 + index, index, time_us, size))


def fast(index, size, time_us, gbps):
    return ("{file}:%d:1: error: /rows/%d/time: implausible: %d bytes in %s us is %s GB/s, beyond 18000 GB/s (20 "
            "times the fastest scale-up link)" % (HEADER_LINES + 1 + index, index, size, time_us, gbps))


CASES = {
    "one_8_byte_row": ([row(8, "13.00")], [TOO_FEW.replace("{n}", "1")]),
    "one_row_of_1e300_us": ([row(67108864, "1e300")],
                            [slow(0, "1e+300", 67108864), TOO_FEW.replace("{n}", "1")]),
    "three_sizes": (rows[:3], [TOO_FEW.replace("{n}", "3")]),
    "a_tenth_of_a_microsecond": (rows[:6] + [row(16384 * 64, "0.1")], [slow(6, "0.1", 1048576)]),
    "8_GiB_in_10_us": (rows[:6] + [row(8589934592, "10")], [fast(6, 8589934592, "10", "8.59e+05")]),
    "two_hours": (rows[:6] + [row(8589934592, "7.2e9")], [slow(6, "7.2e+09", 8589934592)]),
}

with tempfile.TemporaryDirectory() as tmp:
    for name, (data, expected) in CASES.items():
        log = os.path.join(tmp, name + ".txt")
        with open(log, "w") as f:
            f.writelines(header + data)
        output = os.path.join(tmp, name + ".yaml")
        ran = subprocess.run([gpuscale, "calibrate-network", "--platform", platform, "--nccl-tests", log, "-o", output],
                             capture_output=True, text=True, timeout=300)
        want = [line.replace("{file}", log) for line in expected]
        want.append("gpuscale: %d error(s); nothing was written" % len(expected))
        check(ran.returncode == 2, "%s: exit %d, expected 2: %s" % (name, ran.returncode, ran.stderr))
        check(ran.stderr.splitlines() == want, "%s: stderr\n%s\nexpected\n%s" % (name, ran.stderr, "\n".join(want)))
        check(not os.path.exists(output) and sorted(os.listdir(tmp)) == sorted(
            n for n in os.listdir(tmp) if n.endswith(".txt")), "%s: nothing written: %s" % (name, os.listdir(tmp)))
    # The fixture itself, every row, is plausible: it fits (a short fit; the fit's quality is
    # calibrate_network_cli_test.py's).
    output = os.path.join(tmp, "fixture.yaml")
    ran = subprocess.run([gpuscale, "calibrate-network", "--platform", platform, "--nccl-tests", fixture, "-o", output,
                          "--max-evaluations", "10"], capture_output=True, text=True, timeout=300)
    check(ran.returncode == 0 and os.path.isfile(output), "the fixture fits: " + ran.stderr)

tally.finish()
