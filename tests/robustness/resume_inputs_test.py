#!/usr/bin/python3
"""`gpuscale sweep --resume` after an input changed refuses and names the file.

A sweep records the content hash of every file its points read (platform, imported catalog files,
workload, convergence table, host-input table, the user's --catalog files) in its manifest. Each of those files is edited in turn
after the sweep ran: `--resume` exits 2 naming that file, the results file stays byte-identical and no
journal is left; with the file restored, `--resume` goes on (exit 0).
Usage: resume_inputs_test.py BUILD_DIR SOURCE_DIR"""

import os
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

with tempfile.TemporaryDirectory() as tmp:
    for folder in ("platforms", "workloads"):
        shutil.copytree(os.path.join(source_dir, folder), os.path.join(tmp, folder))
    sweep = os.path.join(tmp, "sweep.yaml")
    with open(sweep, "w") as f:
        f.write("scenario:\n  name: resume-inputs\n  platform: platforms/dgx-a100-1node.yaml\n"
                "  workload: workloads/resnet50.yaml\n  global_batch_size: 2048\n  micro_batch_size: 32\n"
                "  collective: ring\nsweep:\n  gpus: [1, 2, 4, 8]\n")
    results = os.path.join(tmp, "results.h5")
    first = subprocess.run([gpuscale, "sweep", sweep, "-o", results, "-j", "1"], capture_output=True, text=True)
    check(first.returncode == 0, "the sweep runs: " + first.stderr)
    with h5py.File(results, "r") as f:
        manifest = f["sweeps"][list(f["sweeps"])[0]]
        recorded = manifest["input_hashes"][()].decode().splitlines()
        sweep_id = list(f["sweeps"])[0]
    inputs = ["platforms/catalog/accelerators.yaml", "platforms/catalog/node_types.yaml", "platforms/dgx-a100-1node.yaml",
              "workloads/convergence/resnet.yaml", "workloads/host_input/host_input.yaml", "workloads/resnet50.yaml"]
    check([line.split("  ")[1] for line in recorded] == inputs, "the manifest hashes every input: %s" % recorded)

    with open(results, "rb") as f:
        before = f.read()
    for relative in inputs:
        path = os.path.join(tmp, relative)
        with open(path) as f:
            original = f.read()
        with open(path, "a") as f:
            f.write("# edited after the sweep started\n")
        resumed = subprocess.run([gpuscale, "sweep", sweep, "-o", results, "--resume"], capture_output=True, text=True)
        old_hash = [line.split("  ")[0] for line in recorded if line.endswith("  " + relative)][0]
        last = resumed.stderr.splitlines()[-1] if resumed.stderr else ""
        prefix = "gpuscale: error: cannot resume: %s changed since the sweep started (content hash %s, now " % (relative, old_hash)
        suffix = ("): the rows in %s were computed from the old content, and resuming would mix rows of both under sweep "
                  "id %s (restore the file, or start the sweep again into another file)" % (results, sweep_id))
        check(resumed.returncode == 2, "%s edited: --resume exits 2, got %d" % (relative, resumed.returncode))
        check(last.startswith(prefix) and last.endswith(suffix) and len(last) == len(prefix) + 16 + len(suffix),
              "%s edited: the message names it\n  got: %s" % (relative, last))
        with open(results, "rb") as f:
            check(f.read() == before, "%s edited: the results file is unchanged" % relative)
        check(not os.path.exists(results + ".journal"), "%s edited: no journal left" % relative)
        with open(path, "w") as f:
            f.write(original)

    resumed = subprocess.run([gpuscale, "sweep", sweep, "-o", results, "--resume"], capture_output=True, text=True)
    check(resumed.returncode == 0, "inputs restored: --resume goes on: " + resumed.stderr)
    moved = subprocess.run([gpuscale, "sweep", os.path.relpath(sweep, source_dir), "-o", results, "--resume"],
                           capture_output=True, text=True, cwd=source_dir)
    check(moved.returncode == 0, "the same inputs seen from another folder: --resume goes on: " + moved.stderr)

    # A user catalog (--catalog) is an input like the others: left out, edited or restored.
    user = os.path.join(tmp, "user_catalog.yaml")
    shutil.copy(os.path.join(source_dir, "tests", "data", "catalog", "user_catalog.yaml"), user)
    with_catalog = os.path.join(tmp, "with_catalog.h5")
    first = subprocess.run([gpuscale, "sweep", "--catalog", user, sweep, "-o", with_catalog, "-j", "1"],
                           capture_output=True, text=True)
    check(first.returncode == 0, "a sweep with --catalog runs: " + first.stderr)
    with open(with_catalog, "rb") as f:
        before = f.read()
    without = subprocess.run([gpuscale, "sweep", sweep, "-o", with_catalog, "--resume"], capture_output=True, text=True)
    check(without.returncode == 2 and "cannot resume: the sweep no longer reads user_catalog.yaml" in without.stderr,
          "--resume without the sweep's --catalog is refused, naming it: " + without.stderr)
    with open(user, "a") as f:
        f.write("# edited after the sweep started\n")
    edited = subprocess.run([gpuscale, "sweep", "--catalog", user, sweep, "-o", with_catalog, "--resume"],
                            capture_output=True, text=True)
    check(edited.returncode == 2 and "cannot resume: user_catalog.yaml changed since the sweep started" in edited.stderr,
          "--resume after the --catalog file changed is refused, naming it: " + edited.stderr)
    with open(with_catalog, "rb") as f:
        check(f.read() == before, "the refused resumes leave the results file unchanged")
    shutil.copy(os.path.join(source_dir, "tests", "data", "catalog", "user_catalog.yaml"), user)
    resumed = subprocess.run([gpuscale, "sweep", "--catalog", user, sweep, "-o", with_catalog, "--resume"],
                             capture_output=True, text=True)
    check(resumed.returncode == 0, "the same --catalog: --resume goes on: " + resumed.stderr)

tally.finish()
