#!/usr/bin/python3
"""Software maturity as a user meets it (docs/CALIBRATION.md, "Software maturity"): the committed
calibration has maturity and a reference date; a scenario's `software_date:` at that date gives the
same row as without the key, and on a generation months old (B200) an earlier date is slower and a
later one never slower, while on a long-matured pair (H100 on ResNet-50's successor BERT) the date
barely matters. `predict --round` after the data reports the later_round regime with a wider
interval that keeps widening with the distance, a later date is never slower, a system file in an
MLPerf systems/vX.Y/ folder defaults to that round, and dates beyond the horizon or malformed are
refused. No MLPerf data needed.
Usage: software_date_cli_test.py BUILD_DIR SOURCE_DIR"""

import json
import os
import re
import shutil
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
IGNORED = {"run_id", "wall_time_s", "timestamp_utc", "started_utc"}


def run(*args, cwd=None):
    return subprocess.run([gpuscale, *args], capture_output=True, text=True, cwd=cwd)


with open(os.path.join(source_dir, "calibration", "mlperf.yaml")) as f:
    committed = f.read()
match = re.search(r'software_reference_date: "([0-9-]+)"', committed)
check(match is not None, "the committed calibration states its software reference date")
reference_date = match.group(1) if match else "2025-05-01"
check("maturity:" in committed and "gap_kept_per_year" in committed, "the committed calibration has software maturity")

SCENARIO = """scenario:
  name: maturity
  platform: {platform}
  workload: {workload}
  gpus: 8
  global_batch_size: 512
  micro_batch_size: 8
{extra}"""


def row_of(tmp, name, extra, platform="dgx-b200-1node.yaml"):
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        f.write(SCENARIO.format(platform=os.path.join(source_dir, "platforms", platform),
                                workload=os.path.join(source_dir, "workloads", "bert-large.yaml"), extra=extra))
    out = os.path.join(tmp, name + ".h5")
    result = run("run", path, "-o", out)
    check(result.returncode == 0, name + ": " + result.stderr)
    if result.returncode != 0:
        return None
    with h5py.File(out, "r") as f:
        table = f["runs"][()]
    return table[0], table.dtype.names


with tempfile.TemporaryDirectory() as tmp:
    plain = row_of(tmp, "plain", "")
    at_reference = row_of(tmp, "at_reference", "  software_date: " + reference_date + "\n")
    if plain and at_reference:
        row, names = plain
        for name in names:
            if name in IGNORED or (isinstance(row[name], bytes) and name.endswith("path")):
                continue
            same = row[name] == at_reference[0][name] or (row[name] != row[name] and at_reference[0][name] != at_reference[0][name])
            check(same, "column %s: without software_date %r, at the reference date %r" % (name, row[name], at_reference[0][name]))
    # B200 (Blackwell, available from late 2024): its software was young at v4.1 and matures after.
    b200 = {d: row_of(tmp, "b200-" + d, "  software_date: %s\n" % d) for d in ("v4.1", "v5.0", "v6.0")}
    if all(b200.values()):
        step = {d: b200[d][0]["iter_time_s"] for d in b200}
        check(step["v4.1"] > step["v5.0"] >= step["v6.0"],
              "B200 steps: v4.1 %r > v5.0 %r >= v6.0 %r" % (step["v4.1"], step["v5.0"], step["v6.0"]))
    # H100 on BERT: both years old by v4.1, the date moves the step by little.
    h100 = {d: row_of(tmp, "h100-" + d, "  software_date: %s\n" % d, "dgx-h100-1node.yaml") for d in ("v4.1", "v6.0")}
    if all(h100.values()) and all(b200.values()):
        h100_gain = h100["v4.1"][0]["iter_time_s"] / h100["v6.0"][0]["iter_time_s"]
        b200_gain = b200["v4.1"][0]["iter_time_s"] / b200["v6.0"][0]["iter_time_s"]
        check(1.0 <= h100_gain < b200_gain, "v4.1 -> v6.0 gains: H100 %r, B200 %r" % (h100_gain, b200_gain))
    # A scenario with its own efficiencies has no calibrated efficiency to move.
    path = os.path.join(tmp, "both.yaml")
    with open(path, "w") as f:
        f.write(SCENARIO.format(platform=os.path.join(source_dir, "platforms", "dgx-h100-1node.yaml"),
                                workload=os.path.join(source_dir, "workloads", "bert-large.yaml"),
                                extra="  efficiency: {compute: 0.5, memory: 0.8}\n  software_date: 2025-06\n"))
    both = run("run", path, "-o", os.path.join(tmp, "both.h5"))
    check(both.returncode == 2 and "/scenario/software_date: software_date sets the calibration's efficiencies"
          in both.stderr, both.stderr)

    # predict: the reference date, rounds after it, a round in the data, the default from systems/vX.Y/.
    system = os.path.join(source_dir, "tests", "data", "mlperf", "hand_built_dgx_b200_1node.json")

    def predict(*args, path=system, benchmark="stable_diffusion"):
        result = run("predict", "--system", path, "--benchmark", benchmark, "--format", "json", *args)
        check(result.returncode == 0, " ".join(args) + ": " + result.stderr)
        return json.loads(result.stdout) if result.returncode == 0 else None

    now, v60, v70, v41 = predict(), predict("--round", "v6.0"), predict("--round", "v7.0"), predict("--round", "v4.1")
    if now and v60 and v70 and v41:
        check(now["software_date"] is None and now["regime"] == "calibrated_family", str(now))
        check(v60["software_date"] == "2026-05-01" and v60["regime"] == "later_round", str(v60))
        check(v70["predicted_minutes"] <= v60["predicted_minutes"] <= now["predicted_minutes"] < v41["predicted_minutes"],
              "a later date is never slower, v4.1 software slower than the reference: %r %r %r %r"
              % (v41["predicted_minutes"], now["predicted_minutes"], v60["predicted_minutes"], v70["predicted_minutes"]))
        check(v41["regime"] == "calibrated_family", "a date inside the data is not later_round: " + v41["regime"])
        width = lambda p: (p["interval_minutes"][1] - p["interval_minutes"][0]) / p["predicted_minutes"]
        check(width(v60) > width(now), "the later round's interval is wider: %r vs %r" % (width(v60), width(now)))
        check(width(v70) > width(v60), "and wider the further ahead: %r vs %r" % (width(v70), width(v60)))
        check(v41["software_factor"] < 1 <= v60["software_factor"], "software factors %r %r"
              % (v41["software_factor"], v60["software_factor"]))
        check(any("extrapolated" in n and "years ahead" in n for n in v60["notes"]), str(v60["notes"]))
    in_round = os.path.join(tmp, "mlperf", "systems", "v4.1")
    os.makedirs(in_round)
    shutil.copy(system, in_round)
    defaulted = predict(path=os.path.join(in_round, os.path.basename(system)))
    if defaulted and v41:
        check(defaulted["software_date"] == "2024-10-01" and "round v4.1" in defaulted["software_date_source"],
              str(defaulted))
        check(defaulted["predicted_minutes"] == v41["predicted_minutes"], "systems/v4.1/ defaults to --round v4.1")
    overridden = predict("--round", "v5.0", path=os.path.join(in_round, os.path.basename(system)))
    check(overridden is not None and overridden["software_date"] == "2025-05-01", str(overridden))

    far = run("predict", "--system", system, "--benchmark", "bert", "--date", "2029-01")
    check(far.returncode != 0 and "software maturity is extrapolated at most 3 years" in far.stderr, far.stderr)
    for args in (("--round", "v5.3"), ("--round", "2025-06"), ("--date", "v5.0"), ("--date", "June 2025")):
        bad = run("predict", "--system", system, "--benchmark", "bert", *args)
        check(bad.returncode != 0 and args[0] + ":" in bad.stderr, " ".join(args) + ": " + bad.stderr)
    both = run("predict", "--system", system, "--benchmark", "bert", "--round", "v5.0", "--date", "2025-06")
    check(both.returncode != 0, "--round and --date exclude each other")

tally.finish()
