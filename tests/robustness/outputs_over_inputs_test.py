#!/usr/bin/python3
"""Outputs over inputs: every command that writes checks its output against everything it reads before
any work, with `PATH: error: cannot write the output: REASON` and exit 2, and leaves every input
byte-identical and no new file behind (no temporary file either).

Cases (each command on a copy of its inputs, the output aimed at one of them):
- `mlperf import DIR -o` a result log inside DIR, a new file inside DIR;
- `calibrate --mlperf DIR -o` a system description inside DIR;
- `validate --mlperf DIR --plot` / `--residuals` / `--write-intervals` inside DIR, `--residuals` over
  `--calibration` (`--write-intervals` may name the `--calibration` validated: it rewrites it on purpose);
- `platform export -o` the catalog file the platform imports, and the platform itself;
- `run` / `plan -o` the workload, the platform or a catalog file the scenario reads;
- `sweep -o` a workload one of its points reads;
- `frontier -o` a file, or the folder that holds the results file it reads;
- `calibrate-network -o` a catalog file the platform imports.
Usage: outputs_over_inputs_test.py BUILD_DIR SOURCE_DIR"""

import os
import shutil
import subprocess
import sys
import tempfile

build_dir, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check
TRAILER = "gpuscale: 1 error(s); nothing was written"


def run(*args, cwd=None):
    return subprocess.run([gpuscale, *args], capture_output=True, text=True, cwd=cwd, timeout=300)


def snapshot(folder):
    """{relative path: bytes} of every file under folder."""
    files = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, folder)] = f.read()
    return files


def refused(what, args, output, reason, folder, cwd=None):
    """The command exits 2 naming `output` and `reason`, and nothing under `folder` changed."""
    before = snapshot(folder)
    ran = run(*args, cwd=cwd)
    expected = "%s: error: cannot write the output: %s" % (output, reason)
    check(ran.returncode == 2, "%s: exit %d, expected 2: %s" % (what, ran.returncode, ran.stderr))
    check(ran.stderr.splitlines() == [expected, TRAILER], "%s: stderr %r, expected %r" % (what, ran.stderr, expected))
    after = snapshot(folder)
    check(after == before, "%s: the inputs changed or files appeared: %s" %
          (what, sorted(set(after) ^ set(before)) or [k for k in after if after[k] != before.get(k)]))


with tempfile.TemporaryDirectory() as tmp:
    mlperf = os.path.join(tmp, "mlperf")
    shutil.copytree(os.path.join(source_dir, "tests", "data", "mlperf"), mlperf)
    log = os.path.join(mlperf, "results", "v9.9", "Acme__box8", "bert", "result_0.txt")
    system = os.path.join(mlperf, "systems", "v9.9", "Acme__box8.json")
    inside = "it is inside the folder %s, which this command reads" % mlperf

    refused("mlperf import -o a log it reads", ("mlperf", "import", mlperf, "-o", log), log, inside, tmp)
    refused("mlperf import -o a new file in its folder", ("mlperf", "import", mlperf, "-o", os.path.join(mlperf, "new.h5")),
            os.path.join(mlperf, "new.h5"), inside, tmp)
    refused("calibrate -o a system description it reads", ("calibrate", "--mlperf", mlperf, "-o", system), system, inside, tmp)
    refused("validate --plot in its folder", ("validate", "--mlperf", mlperf, "--plot", os.path.join(mlperf, "plot.png")),
            os.path.join(mlperf, "plot.png"), inside, tmp)
    refused("validate --residuals over a system description",
            ("validate", "--mlperf", mlperf, "--residuals", system), system, inside, tmp)
    refused("validate --write-intervals in its folder", ("validate", "--mlperf", mlperf, "--write-intervals", system),
            system, inside, tmp)
    calibration = os.path.join(tmp, "calibration.yaml")
    shutil.copy(os.path.join(source_dir, "calibration", "mlperf.yaml"), calibration)
    refused("validate --residuals over --calibration",
            ("validate", "--mlperf", mlperf, "--calibration", calibration, "--residuals", calibration), calibration,
            "it is the input " + calibration, tmp)

    platforms = os.path.join(tmp, "platforms")
    shutil.copytree(os.path.join(source_dir, "platforms"), platforms)
    platform = os.path.join(platforms, "dgx-h100-1node.yaml")
    accelerators = os.path.join(platforms, "catalog", "accelerators.yaml")
    node_types = os.path.join(platforms, "catalog", "node_types.yaml")
    refused("platform export -o the catalog it imports", ("platform", "export", platform, "-o", accelerators),
            accelerators, "it is the input " + accelerators, tmp)
    refused("platform export -o the platform", ("platform", "export", platform, "-o", platform),
            platform, "it is the input " + platform, tmp)

    workloads = os.path.join(tmp, "workloads")
    shutil.copytree(os.path.join(source_dir, "workloads"), workloads)
    resnet = os.path.join(workloads, "resnet50.yaml")
    scenario = os.path.join(tmp, "scenario.yaml")
    with open(scenario, "w") as f:
        f.write("scenario:\n  name: resnet-h100-8\n  platform: platforms/dgx-h100-1node.yaml\n"
                "  workload: workloads/resnet50.yaml\n  gpus: 8\n  global_batch_size: 2048\n  micro_batch_size: 256\n")
    for target in (resnet, platform, node_types):
        for command in ("run", "plan"):
            refused("%s -o %s" % (command, os.path.relpath(target, tmp)), (command, scenario, "-o", target), target,
                    "it is the input " + target, tmp)
    sweep = os.path.join(tmp, "sweep.yaml")
    with open(sweep, "w") as f:
        f.write("scenario:\n  name: resnet-h100\n  platform: platforms/dgx-h100-1node.yaml\n"
                "  workload: workloads/resnet50.yaml\n  gpus: 8\n  global_batch_size: 2048\n  micro_batch_size: 256\n"
                "sweep:\n  gpus: [4, 8]\n")
    refused("sweep -o a workload its points read", ("sweep", sweep, "-o", resnet), resnet, "it is the input " + resnet, tmp)

    nccl = os.path.join(source_dir, "tests", "data", "nccl-tests", "all_reduce_1node_8xh100.txt")
    refused("calibrate-network -o the catalog its platform imports",
            ("calibrate-network", "--platform", platform, "--nccl-tests", nccl, "-o", accelerators), accelerators,
            "it is the input " + accelerators, tmp)

    # frontier: a results file, then its report folder aimed at a file and at the folder holding the results.
    results = os.path.join(tmp, "results", "run.h5")
    os.makedirs(os.path.dirname(results))
    made = run("run", scenario, "-o", results)
    check(made.returncode == 0, "a results file for frontier: " + made.stderr)
    refused("frontier -o a file", ("frontier", results, "-o", scenario), scenario, "it is not a folder", tmp)
    folder = os.path.dirname(results)
    refused("frontier -o the folder of its results file", ("frontier", results, "-o", folder), folder,
            "it holds the input %s, and the command replaces files in it" % results, tmp)
    report = os.path.join(tmp, "report")
    made = run("frontier", results, "-o", report)
    check(made.returncode == 0 and os.path.isfile(os.path.join(report, "report.md")),
          "frontier into a new folder still works: " + made.stderr)

    # What is allowed stays allowed: an output beside the inputs, not inside the folder read.
    imported = os.path.join(tmp, "mlperf.h5")
    made = run("mlperf", "import", mlperf, "-o", imported, "-q")
    check(made.returncode == 0 and os.path.isfile(imported), "mlperf import beside its folder: " + made.stderr)
    exported = os.path.join(tmp, "dgx-h100-1node.xml")
    made = run("platform", "export", platform, "-o", exported)
    check(made.returncode == 0 and os.path.isfile(exported), "platform export beside the platform: " + made.stderr)
    leftovers = [name for _, _, names in os.walk(tmp) for name in names if ".tmp" in name]
    check(not leftovers, "no temporary file left behind: %s" % leftovers)

tally.finish()
