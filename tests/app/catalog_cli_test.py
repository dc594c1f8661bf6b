#!/usr/bin/python3
"""--catalog FILE: a user's catalog replaces a built-in entry and adds a new one, for run, predict and
check, and without it the new entry is unknown. Usage: catalog_cli_test.py BUILD_DIR SOURCE_DIR"""

import json
import os
import re
import subprocess
import sys
import tempfile

build_dir, source_dir = sys.argv[1], os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check
data = os.path.join(source_dir, "tests", "data", "catalog")
user = os.path.join(data, "user_catalog.yaml")


def run(*args):
    return subprocess.run([gpuscale, *args], capture_output=True, text=True)


def compute_ms(stdout):
    match = re.search(r"^  compute\s+([0-9.]+) ms", stdout, re.MULTILINE)
    return float(match.group(1)) if match else None


# run: the replaced H100 entry has half the tensor rates, so the compute of a compute-bound ResNet-50
# step grows (not exactly 2x: the step also has memory-bound kernels the replacement leaves alone).
scenario = os.path.join(data, "h100_scenario.yaml")
built_in = run("run", scenario)
replaced = run("run", "--catalog", user, scenario)
check(built_in.returncode == 0 and replaced.returncode == 0, built_in.stderr + replaced.stderr)
a, b = compute_ms(built_in.stdout), compute_ms(replaced.stdout)
check(a is not None and b is not None and b > 1.05 * a, "half-rate H100 computes longer: %s -> %s ms" % (a, b))

# run: a node type and accelerator that exist only in the user's catalog.
acme = os.path.join(data, "acme_x1_scenario.yaml")
failure = run("run", acme)
check(failure.returncode == 2 and "unknown node type 'acme-x1-8'" in failure.stderr, failure.stderr)
ok = run("run", "--catalog", user, acme)
check(ok.returncode == 0 and "acme-x1-96gb" in ok.stdout, ok.stdout + ok.stderr)

# predict and check identify the new accelerator from a system description, only with --catalog.
system = os.path.join(data, "acme_x1_8.json")
failure = run("predict", "--system", system, "--benchmark", "bert")
check(failure.returncode == 2 and system + ":11:31: error: /accelerator_model_name: unknown accelerator "
      "'Acme X1 96GB HBM3': no catalog entry has part number 'x1'" in failure.stderr, failure.stderr)
failure = run("check", system)
check(failure.returncode == 2 and "unknown accelerator 'Acme X1 96GB HBM3'" in failure.stderr, failure.stderr)
predicted = run("predict", "--catalog", user, "--system", system, "--benchmark", "bert", "--format", "json")
check(predicted.returncode == 0, predicted.stderr)
if predicted.returncode == 0:
    result = json.loads(predicted.stdout)
    check(result["accelerator"] == "acme-x1-96gb" and result["node_type"] == "acme-x1-8", str(result))
    # Every prediction carries its 80 % interval and the validation mode it comes from.
    low, high = result["interval_minutes"]
    check(low < result["predicted_minutes"] < high and result["interval_level"] == 0.8, str(result))
    check(result["regime"] == "uncalibrated_generation", "a generation without MLPerf results: " + result["regime"])
text = run("predict", "--catalog", user, "--system", system, "--benchmark", "bert")
check(re.search(r"^predicted  [0-9.]+ min \(80 %: [0-9.]+\u2013[0-9.]+\) time to train", text.stdout, re.MULTILINE)
      is not None and "regime     uncalibrated_generation" in text.stdout, text.stdout + text.stderr)
checked = run("check", "--catalog", user, system, acme)
check(checked.returncode == 0 and "(catalog acme-x1-96gb)" in checked.stdout and "acme_x1_scenario.yaml: ok" in
      checked.stdout, checked.stdout + checked.stderr)

# sweep (its workers are forks of the process that read --catalog) and plan take it too.
with tempfile.TemporaryDirectory() as tmp:
    sweep = os.path.join(tmp, "sweep.yaml")
    with open(sweep, "w") as f:
        f.write("scenario:\n  name: acme-sweep\n  workload: %s\n  global_batch_size: 2048\n  micro_batch_size: 256\n"
                "  zero_stage: 0\n  collective: ring\n  gpus: 8\nsweep:\n  platform: [%s]\n"
                % (os.path.join(source_dir, "workloads", "resnet50.yaml"), os.path.join(data, "acme-x1-1node.yaml")))
    failure = run("sweep", sweep, "-o", os.path.join(tmp, "a.h5"), "-j", "2")
    check(failure.returncode == 2 and "unknown node type 'acme-x1-8'" in failure.stderr, failure.stderr)
    swept = run("sweep", "--catalog", user, sweep, "-o", os.path.join(tmp, "b.h5"), "-j", "2")
    check(swept.returncode == 0 and "1 ok" in swept.stdout, swept.stdout + swept.stderr)
planned = run("plan", "--catalog", user, acme)
check(planned.returncode == 0 and "acme-x1-96gb" in planned.stdout, planned.stdout + planned.stderr)

# A bad user catalog is located in the user's file.
bad = run("run", "--catalog", os.path.join(source_dir, "tests", "data", "catalog", "acme-x1-1node.yaml"), acme)
check(bad.returncode == 2 and "acme-x1-1node.yaml:2:1: error: /imports: unknown key 'imports'" in bad.stderr, bad.stderr)

sys.exit(tally.finish())
