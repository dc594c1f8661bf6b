#!/usr/bin/python3
"""gpuscale compare as a user meets it: a scenario against itself is exactly a tie at [1, 1]; every
option's interval holds its time; a ratio's interval holds its ratio and is a tie exactly when it
holds 1; the options of one family are judged by the same-family pair bounds, narrower than the two
intervals side by side; fewer than two scenarios, or a bad one, exit 2 before anything is simulated.
Usage: compare_cli_test.py BUILD_DIR SOURCE_DIR"""

import glob
import json
import os
import subprocess
import sys
import tempfile

build_dir, source_dir = sys.argv[1], sys.argv[2]
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check


def compare(*args):
    return subprocess.run([gpuscale, "compare", *args], capture_output=True, text=True, cwd=source_dir)


same = "scenarios/mlperf/bert-dgx-h100-8gpu.yaml"
out = compare("--format", "json", same, same)
check(out.returncode == 0, "compare of a scenario with itself exits 0: " + out.stderr)
result = json.loads(out.stdout)
ratio = result["ratios"][0]
check((ratio["ratio"], ratio["low"], ratio["high"]) == (1, 1, 1), "itself: ratio exactly [1, 1], got %s" % ratio)
check(ratio["tie"] and ratio["basis"] == "identical", "itself: a tie, judged identical: %s" % ratio)

options = sorted(glob.glob(os.path.join(source_dir, "scenarios", "compare", "*.yaml")))
out = compare("--format", "json", *options)
check(out.returncode == 0, "compare of scenarios/compare exits 0: " + out.stderr)
result = json.loads(out.stdout)
check(len(result["options"]) == len(options), "one option per scenario")
check(len(result["ratios"]) == len(options) * (len(options) - 1) // 2, "one ratio per pair")
by_name = {o["scenario"]: o for o in result["options"]}
for o in result["options"]:
    check(o["low_s"] < o["value_s"] < o["high_s"], "%s: the interval holds the time" % o["scenario"])
for r in result["ratios"]:
    check(r["low"] <= r["ratio"] <= r["high"], "%s / %s: the interval holds the ratio" % (r["first"], r["second"]))
    check(r["tie"] == (r["low"] <= 1 <= r["high"]), "%s / %s: tie exactly when 1 is inside" % (r["first"], r["second"]))
    if r["first"].startswith("bert-64-h100") and r["second"].startswith("bert-64-h100"):
        a, b = by_name[r["first"]], by_name[r["second"]]
        side_by_side = (a["high_s"] / b["low_s"]) / (a["low_s"] / b["high_s"])
        check(r["basis"].startswith("same_family"), "the two H100 options are judged as one family: " + r["basis"])
        check(r["high"] / r["low"] < side_by_side, "the same-family ratio is narrower than the intervals side by side")

out = compare(same)
check(out.returncode == 2, "one scenario: exit 2 (got %d)" % out.returncode)
with tempfile.TemporaryDirectory() as tmp:
    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write("scenario:\n  name: bad\n  gpus: many\n")
    out = compare(same, bad)
    check(out.returncode == 2, "a bad scenario: exit 2 (got %d)" % out.returncode)
    check("bad.yaml:" in out.stderr, "the error names the file and line: " + out.stderr.strip()[:200])
    check("simulating" not in out.stderr, "nothing is simulated before the inputs are read")

tally.finish()
