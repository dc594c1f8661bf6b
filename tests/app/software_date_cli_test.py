#!/usr/bin/python3
"""The software trend as a user meets it (docs/CALIBRATION.md, "Software trend"): the committed
calibration has no trend, so a scenario's `software_date:` changes nothing in its row (the same row
as without the key); `predict --round` with the trend calibration (calibration/mlperf-software-trend.yaml)
after its data reports the later_round regime with a wider interval (with the trend calibration and
with the committed one, which has no trend but records its latest round, and whose interval keeps
widening beyond the distance later_round was measured at) and a later date is never
slower, a system file in an MLPerf systems/vX.Y/ folder defaults to that round, and dates beyond the
trend's horizon or malformed are refused. No MLPerf data needed.
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


trend_calibration = os.path.join(source_dir, "calibration", "mlperf-software-trend.yaml")
with open(trend_calibration) as f:
    match = re.search(r'software_reference_date: "([0-9-]+)"', f.read())
check(match is not None, "the trend calibration states its software reference date")
reference_date = match.group(1) if match else "2024-10-01"
with open(os.path.join(source_dir, "calibration", "mlperf.yaml")) as f:
    check("software_trend:" not in f.read(), "the committed calibration has no software trend")

SCENARIO = """scenario:
  name: trend
  platform: {platform}
  workload: {workload}
  gpus: 8
  global_batch_size: 512
  micro_batch_size: 8
{extra}"""


def row_of(tmp, name, extra):
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        f.write(SCENARIO.format(platform=os.path.join(source_dir, "platforms", "dgx-h100-1node.yaml"),
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
    later = row_of(tmp, "later", "  software_date: v5.0\n")
    if plain and at_reference and later:
        row, names = plain
        for other, label in ((at_reference[0], "at the trend's reference date"), (later[0], "at v5.0")):
            for name in names:
                if name in IGNORED or (isinstance(row[name], bytes) and name.endswith("path")):
                    continue
                same = row[name] == other[name] or (row[name] != row[name] and other[name] != other[name])
                check(same, "column %s: without software_date %r, %s %r (no trend in the committed calibration)"
                      % (name, row[name], label, other[name]))
    # A scenario with its own efficiencies has no calibrated efficiency to move.
    path = os.path.join(tmp, "both.yaml")
    with open(path, "w") as f:
        f.write(SCENARIO.format(platform=os.path.join(source_dir, "platforms", "dgx-h100-1node.yaml"),
                                workload=os.path.join(source_dir, "workloads", "bert-large.yaml"),
                                extra="  efficiency: {compute: 0.5, memory: 0.8}\n  software_date: 2025-06\n"))
    both = run("run", path, "-o", os.path.join(tmp, "both.h5"))
    check(both.returncode == 2 and "/scenario/software_date: software_date moves the calibration's efficiencies"
          in both.stderr, both.stderr)
    bad = run("run", path.replace("both", "plain"), "-o", os.path.join(tmp, "x.h5"))
    check(bad.returncode == 0, bad.stderr)

    # predict: the reference date, a later round, a round in the data, the default from systems/vX.Y/.
    system = os.path.join(source_dir, "tests", "data", "mlperf", "hand_built_dgx_b200_1node.json")
    h100 = os.path.join(tmp, "h100.json")
    with open(system) as f:
        description = json.load(f)
    description.update({"accelerator_model_name": "NVIDIA H100-SXM5-80GB", "accelerator_memory_capacity": "80 GB",
                        "system_name": "hand-built 8x H100"})
    with open(h100, "w") as f:
        json.dump(description, f)

    def predict(*args, path=h100):
        result = run("predict", "--system", path, "--benchmark", "stable_diffusion", "--format", "json",
                     "--calibration", trend_calibration, *args)
        check(result.returncode == 0, " ".join(args) + ": " + result.stderr)
        return json.loads(result.stdout) if result.returncode == 0 else None

    now, v50, v40 = predict(), predict("--round", "v5.0"), predict("--date", "2024-05")
    if now and v50 and v40:
        check(now["software_date"] is None and now["regime"] == "calibrated_family", str(now))
        check(v50["software_date"] == "2025-05-01" and v50["regime"] == "later_round", str(v50))
        check(v50["predicted_minutes"] < now["predicted_minutes"] < v40["predicted_minutes"],
              "v4.0 software slower than the reference, v5.0 faster (Stable Diffusion's trend is below 1): %r %r %r"
              % (v40["predicted_minutes"], now["predicted_minutes"], v50["predicted_minutes"]))
        check(v40["regime"] == "calibrated_family", "a date inside the data is not later_round: " + v40["regime"])
        width = lambda p: (p["interval_minutes"][1] - p["interval_minutes"][0]) / p["predicted_minutes"]
        check(width(v50) > width(now), "the later round's interval is wider: %r vs %r" % (width(v50), width(now)))
        check(v50["parameter_log_sd"] > now["parameter_log_sd"], "the trend's uncertainty enters the log-sd")
        check(any("extrapolated" in n for n in v50["notes"]), str(v50["notes"]))
    in_round = os.path.join(tmp, "mlperf", "systems", "v4.0")
    os.makedirs(in_round)
    shutil.copy(h100, in_round)
    defaulted = predict(path=os.path.join(in_round, "h100.json"))
    if defaulted and v40:
        check(defaulted["software_date"] == "2024-05-01" and "round v4.0" in defaulted["software_date_source"],
              str(defaulted))
        check(defaulted["predicted_minutes"] == v40["predicted_minutes"], "systems/v4.0/ defaults to --round v4.0")
    overridden = predict("--round", "v4.1", path=os.path.join(in_round, "h100.json"))
    check(overridden is not None and overridden["software_date"] == "2024-10-01", str(overridden))

    far = run("predict", "--system", h100, "--benchmark", "bert", "--date", "2028-01", "--calibration", trend_calibration)
    check(far.returncode != 0 and "the software trend is extrapolated at most 2 years" in far.stderr, far.stderr)
    plain_far = run("predict", "--system", h100, "--benchmark", "bert", "--date", "2028-01", "--format", "json")
    check(plain_far.returncode == 0 and "has no software trend" in plain_far.stdout,
          "without a trend any date predicts at the reference efficiencies, with a note: " + plain_far.stdout[-300:])
    # Without a trend the committed calibration still knows its latest round (v4.1): a later round
    # predicts the same minutes, but with later_round's interval (at least as wide as in-round).
    plain = {}
    for round_name in ("v4.1", "v5.0", "v6.0"):
        result = run("predict", "--system", h100, "--benchmark", "bert", "--round", round_name, "--format", "json")
        check(result.returncode == 0, round_name + ": " + result.stderr)
        if result.returncode == 0:
            plain[round_name] = json.loads(result.stdout)
    if len(plain) == 3:
        inside, later, far_later = plain["v4.1"], plain["v5.0"], plain["v6.0"]
        check(inside["regime"] == "calibrated_family" and later["regime"] == "later_round", str(plain))
        check(inside["predicted_minutes"] == later["predicted_minutes"], "no trend: the same efficiencies")
        check(later["interval_minutes"][0] <= inside["interval_minutes"][0] and
              later["interval_minutes"][1] >= inside["interval_minutes"][1],
              "the later round's interval contains the in-round one: %r %r" %
              (later["interval_minutes"], inside["interval_minutes"]))
        check(any("after the calibration's latest round (2024-10-01)" in n for n in later["notes"]), str(later["notes"]))
        # A year further ahead, with nothing to move the efficiencies, the interval keeps widening:
        # later_round was measured 0.42 years ahead, v6.0 is 1.58.
        check(far_later["regime"] == "later_round" and far_later["predicted_minutes"] == later["predicted_minutes"],
              str(far_later))
        check(far_later["interval_minutes"][0] < later["interval_minutes"][0] and
              far_later["interval_minutes"][1] > later["interval_minutes"][1],
              "v6.0's interval is wider than v5.0's: %r %r" % (far_later["interval_minutes"], later["interval_minutes"]))
        check(any("1.58 years after" in n and "0.42 years ahead" in n for n in far_later["notes"]), str(far_later["notes"]))
    for args in (("--round", "v5.3"), ("--round", "2025-06"), ("--date", "v5.0"), ("--date", "June 2025")):
        bad = run("predict", "--system", h100, "--benchmark", "bert", *args)
        check(bad.returncode != 0 and args[0] + ":" in bad.stderr, " ".join(args) + ": " + bad.stderr)
    both = run("predict", "--system", h100, "--benchmark", "bert", "--round", "v5.0", "--date", "2025-06")
    check(both.returncode != 0, "--round and --date exclude each other")

tally.finish()
