#!/usr/bin/python3
"""Late or silent refusals: what a command cannot honour is refused before any work, with a message
that names the option or value; what it is told to do is never ignored.

- An existing output that is not a results file (the empty file mktemp makes, a text file, an HDF5 file
  of another kind) is refused by `run` and `plan` before the simulation: exit 2, no summary printed,
  the file unchanged.
- `validate --max-median-ape` NaN, infinite, negative or zero: exit 2 at parse time (a comparison with
  NaN is never true, so the gate would never close).
- `predict --gradient-accumulation N` that does not divide the per-replica batch: exit 2 naming it, not
  the layout rule's own choice; one that divides is used.
- Signals: exit status 128 + the signal, as a shell reports it. `run` (no handler) dies by SIGTERM or
  SIGINT; `sweep` finishes its bookkeeping and exits 143 on SIGTERM, 130 on SIGINT.
- A bandwidth written without the space before its unit ("900GB/s") is read; a bare number is refused
  with the expected form.
Usage: late_refusals_test.py BUILD_DIR SOURCE_DIR"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py

build_dir, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check
scenario = os.path.join(source_dir, "scenarios", "default.yaml")
plan_scenario = os.path.join(source_dir, "scenarios", "poplar", "bert-large-v100-t4.yaml")
mi300x = os.path.join(source_dir, "tests", "data", "mlperf", "hand_built_mi300x_8.json")
mlperf = os.path.join(source_dir, "tests", "data", "mlperf")


def rows_in(path):
    try:
        with h5py.File(path, "r") as f:
            return len(f["runs"])
    except (OSError, KeyError):
        return 0


def run(*args):
    return subprocess.run([gpuscale, *args], capture_output=True, text=True, timeout=300)


with tempfile.TemporaryDirectory() as tmp:
    # 1. Outputs that are not results files, refused before the simulation.
    foreign = os.path.join(tmp, "mlperf.h5")
    check(run("mlperf", "import", mlperf, "-o", foreign, "-q").returncode == 0, "an HDF5 file of another kind")
    text = os.path.join(tmp, "notes.txt")
    with open(text, "w") as f:
        f.write("not a results file\n")
    empty = os.path.join(tmp, "empty")
    open(empty, "w").close()
    for path, reason in ((empty, "not an HDF5 file"), (text, "not an HDF5 file"),
                         (foreign, "not a gpuscale results file (no /runs table)")):
        with open(path, "rb") as f:
            before = f.read()
        for command, input_file in (("run", scenario), ("plan", plan_scenario)):
            started = time.monotonic()
            ran = run(command, input_file, "-o", path)
            what = "%s -o %s" % (command, os.path.basename(path))
            check(ran.returncode == 2, "%s: exit %d, expected 2: %s" % (what, ran.returncode, ran.stderr))
            check(("gpuscale: error: %s: %s" % (path, reason)) in ran.stderr, "%s names the reason: %s" % (what, ran.stderr))
            check(ran.stdout == "", "%s: refused before any simulation, nothing printed: %r" % (what, ran.stdout[:200]))
            with open(path, "rb") as f:
                check(f.read() == before, "%s: the file is unchanged" % what)
            print("%s refused in %.2f s" % (what, time.monotonic() - started))

    # 2. validate's gate: a threshold that cannot close it is a usage error.
    for value in ("nan", "NaN", "inf", "-5", "0", "5%"):
        ran = run("validate", "--mlperf", mlperf, "--max-median-ape", value)
        check(ran.returncode == 2 and "--max-median-ape: expected a positive, finite percentage, got '%s'" % value
              in ran.stderr, "--max-median-ape %s: exit %d: %s" % (value, ran.returncode, ran.stderr))

    # 3. predict --gradient-accumulation: 768 over 8 MI300X is 96 per replica.
    for steps in ("5", "7", "64"):
        ran = run("predict", "--system", mi300x, "--benchmark", "bert", "--gradient-accumulation", steps)
        check(ran.returncode == 2 and ("--gradient-accumulation %s: global batch 768 over 8 replicas is 96 samples per "
                                       "replica per step, which %s micro-batches do not divide" % (steps, steps))
              in ran.stderr and ran.stdout == "", "--gradient-accumulation %s refused: %s" % (steps, ran.stderr))
    for steps, micro in (("2", 48), ("3", 32)):
        ran = run("predict", "--system", mi300x, "--benchmark", "bert", "--gradient-accumulation", steps)
        check(ran.returncode == 0 and ("micro-batch %d," % micro) in ran.stdout,
              "--gradient-accumulation %s gives micro-batch %d: %s" % (steps, micro, ran.stdout + ran.stderr))

    # 4. Signals: 128 + the signal. A slow run (1,024 GPUs simulated in full) is killed after a second.
    slow = os.path.join(tmp, "slow.yaml")
    with open(slow, "w") as f:
        f.write("scenario:\n  name: slow\n  platform: %s\n  workload: %s\n  gpus: 1024\n  global_batch_size: 1024\n"
                "  micro_batch_size: 1\n  tp: 8\n  symmetry: simulate\n"
                % (os.path.join(source_dir, "platforms", "dgx-a100-128node-fattree.yaml"),
                   os.path.join(source_dir, "workloads", "llama2-70b-lora.yaml")))
    for signum in (signal.SIGTERM, signal.SIGINT):
        runner = subprocess.Popen([gpuscale, "run", slow], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        runner.send_signal(signum)
        status = runner.wait(timeout=120)  # -N: killed by signal N, which a shell reports as 128 + N
        check(status == -signum, "run killed by %s: status %d, expected death by the signal (%d)" % (signum.name, status, -signum))
    sweep = os.path.join(tmp, "sweep.yaml")
    with open(sweep, "w") as f:
        f.write("scenario:\n  name: signals\n  platform: %s\n  workload: %s\n  global_batch_size: 2048\n"
                "  micro_batch_size: 32\nsweep:\n  gpus: [8, 16, 32]\n  zero_stage: [0, 1, 2, 3]\n"
                "  collective: [ring, hierarchical]\n"
                % (os.path.join(source_dir, "platforms", "dgx-h100-4node-rail.yaml"),
                   os.path.join(source_dir, "workloads", "resnet50.yaml")))
    for signum in (signal.SIGTERM, signal.SIGINT):
        output = os.path.join(tmp, "sweep-%s.h5" % signum.name)
        sweeper = subprocess.Popen([gpuscale, "sweep", sweep, "-o", output, "-j", "1", "--flush-rows", "1"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while rows_in(output) < 1 and time.monotonic() < deadline and sweeper.poll() is None:
            time.sleep(0.02)  # the first row: the sweep's signal handlers are in place
        sweeper.send_signal(signum)
        out, err = sweeper.communicate(timeout=120)
        check(sweeper.returncode == 128 + signum and "interrupted:" in err,
              "sweep stopped by %s exits %d, expected %d: %s" % (signum.name, sweeper.returncode, 128 + signum, err))

    # 5. "900GB/s": read as 900 GB/s; a bare number still names the expected form.
    platforms = os.path.join(tmp, "platforms")
    shutil.copytree(os.path.join(source_dir, "platforms"), platforms)
    catalog = os.path.join(platforms, "catalog", "accelerators.yaml")
    with open(catalog) as f:
        original = f.read()
    with open(catalog, "w") as f:
        f.write(original.replace('intra_node_bandwidth: "450 GB/s"', 'intra_node_bandwidth: "450GB/s"'))
    h100 = os.path.join(platforms, "dgx-h100-1node.yaml")
    spaced = run("platform", "export", os.path.join(source_dir, "platforms", "dgx-h100-1node.yaml"), "-o",
                 os.path.join(tmp, "spaced.xml"))
    unspaced = run("platform", "export", h100, "-o", os.path.join(tmp, "unspaced.xml"))
    check(spaced.returncode == 0 and unspaced.returncode == 0, "450GB/s is read: " + unspaced.stderr)
    if spaced.returncode == 0 and unspaced.returncode == 0:
        with open(os.path.join(tmp, "spaced.xml")) as a, open(os.path.join(tmp, "unspaced.xml")) as b:
            check(a.read() == b.read(), "450GB/s and 450 GB/s give the same platform")
    with open(catalog, "w") as f:
        f.write(original.replace('intra_node_bandwidth: "450 GB/s"', 'intra_node_bandwidth: "450"', 1))
    bare = run("check", h100)
    check(bare.returncode == 2 and "expected a bandwidth such as \"400 Gb/s\" or \"900 GB/s\", got '450' (a number "
          "needs an explicit unit)" in bare.stderr, "a bare number names the expected form: " + bare.stderr)

tally.finish()
