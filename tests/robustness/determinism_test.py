#!/usr/bin/python3
"""The same inputs give the same results, through the command line: two `gpuscale run`s of a scenario
write identical /runs rows and scenario texts; two sweeps with one process write identical rows in the
same order; a sweep with two processes writes the same rows (its row order follows completion, so they
are compared by sweep point). No column is time-dependent: every field of every row is compared.
Usage: determinism_test.py BUILD_DIR SOURCE_DIR"""

import os
import subprocess
import sys
import tempfile

import h5py

build_dir, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check


def gpuscale_ok(*args):
    result = subprocess.run([gpuscale, *args], capture_output=True, text=True)
    check(result.returncode == 0, "gpuscale %s: %s" % (" ".join(args), result.stderr))


def contents(path):
    """Every row of /runs (as raw tuples: all columns, bit for bit), the scenario texts, the attributes."""
    with h5py.File(path, "r") as f:
        rows = [tuple(row.tolist()) for row in f["runs"][()]]
        texts = {name: f["scenarios"][name][()] for name in f["scenarios"]}
        attributes = {key: f["runs"].attrs[key].tolist() for key in f["runs"].attrs}
    return rows, texts, attributes


with tempfile.TemporaryDirectory() as tmp:
    scenario = os.path.join(source_dir, "scenarios", "default.yaml")
    first, second = os.path.join(tmp, "first.h5"), os.path.join(tmp, "second.h5")
    gpuscale_ok("run", scenario, "-o", first)
    gpuscale_ok("run", scenario, "-o", second)
    a, b = contents(first), contents(second)
    check(len(a[0]) == 1 and a[0][0][0] == 1, "one row, run_id 1")
    check(a[0] == b[0], "two runs of a scenario: identical rows\n  %s\n  %s" % (a[0], b[0]))
    check(a[1] == b[1], "two runs of a scenario: identical scenario texts")
    check(a[2] == b[2], "two runs of a scenario: identical /runs attributes")

    sweep = os.path.join(tmp, "sweep.yaml")
    with open(sweep, "w") as f:
        f.write("scenario:\n  name: determinism\n  platform: %s\n  workload: %s\n  global_batch_size: 2048\n"
                "  micro_batch_size: 32\n  collective: ring\nsweep:\n  gpus: [8, 16]\n  zero_stage: [0, 1, 2, 3]\n"
                % (os.path.join(source_dir, "platforms", "dgx-h100-4node-rail.yaml"),
                   os.path.join(source_dir, "workloads", "resnet50.yaml")))
    serial = [os.path.join(tmp, "serial-%d.h5" % i) for i in (1, 2)]
    for path in serial:
        gpuscale_ok("sweep", sweep, "-o", path, "-j", "1")
    s1, s2 = contents(serial[0]), contents(serial[1])
    check(len(s1[0]) == 8, "8 sweep points, got %d" % len(s1[0]))
    check(s1[0] == s2[0], "two sweeps with -j 1: identical rows in the same order")
    check(s1[1] == s2[1], "two sweeps with -j 1: identical scenario texts")

    parallel = os.path.join(tmp, "parallel.h5")
    gpuscale_ok("sweep", sweep, "-o", parallel, "-j", "2")
    p = contents(parallel)
    with h5py.File(serial[0], "r") as f:
        names = list(f["runs"].dtype.names)
    point, run_id = names.index("sweep_point"), names.index("run_id")

    def by_point(rows):
        return sorted((row[point], row[:run_id] + row[run_id + 1:]) for row in rows)

    check(by_point(p[0]) == by_point(s1[0]), "a sweep with -j 2: the same rows as with -j 1, point by point")

tally.finish()
