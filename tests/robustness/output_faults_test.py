#!/usr/bin/python3
"""Results files under concurrent writers and hostile outputs, through the command line.

- Concurrency: N `gpuscale run`s at once on one file, several rounds, and runs appending to the file of
  a running sweep: every row lands exactly once (run_id 1..N, one scenario text each), every sweep point
  is in the file. A writer that finds the folder locked past GPUSCALE_LOCK_TIMEOUT_S gives up with a
  message and exit 2; one that finds it locked for less waits and writes.
- Outputs refused before any work, with `PATH: error: cannot write the output: REASON` and exit 2: a
  directory, a FIFO (never blocks), a device, a symbolic link loop, a link to a missing file, a missing
  folder, a file used as a folder, the command's own input (run, sweep, platform export, merge); a
  read-only file system when one can be mounted here. A symbolic link to a results file is followed:
  the link stays, its target gets the row.
- A full disk (a 200 KiB tmpfs, when this test may mount one) and the file size limit (`ulimit -f`,
  always): exit 2, the cause named, the results file byte-identical, no temporary file, no crash.
- A refused `sweep -o` leaves no journal.
Usage: output_faults_test.py BUILD_DIR SOURCE_DIR"""

import fcntl
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import h5py

build_dir, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
scenario = os.path.join(source_dir, "scenarios", "default.yaml")
TRAILER = "gpuscale: 1 error(s); nothing was written"
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check


def run_gpuscale(args, cwd=None, env=None, preexec_fn=None, timeout=60):
    try:
        return subprocess.run([gpuscale, *args], capture_output=True, text=True, cwd=cwd, env=env,
                              preexec_fn=preexec_fn, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def rows_of(path):
    with h5py.File(path, "r") as f:
        return list(f["runs"][()]), len(f["scenarios"])


def file_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def refused(label, args, expected, folder, cwd=None, protect=(), env=None, preexec_fn=None):
    """`args` exits 2 with exactly `expected` (then the trailer) on stderr, leaves `folder` as it was
    and every path in `protect` byte-identical."""
    before = sorted(os.listdir(folder))
    snapshots = {path: file_bytes(path) for path in protect}
    result = run_gpuscale(args, cwd=cwd, env=env, preexec_fn=preexec_fn)
    if result is None:
        check(False, "%s: no answer within 60 s (blocked?)" % label)
        return
    want = expected + ([TRAILER] if expected and not expected[-1].startswith("gpuscale: error:") else [])
    got = result.stderr.splitlines()
    check(result.returncode == 2, "%s: exit code %d, expected 2 (%s)" % (label, result.returncode, result.stderr))
    check(got == want, "%s: stderr\n  expected: %s\n  got:      %s" % (label, want, got))
    check(sorted(os.listdir(folder)) == before, "%s: files appeared or vanished in %s: %s -> %s"
          % (label, folder, before, sorted(os.listdir(folder))))
    for path, content in snapshots.items():
        check(file_bytes(path) == content, "%s: %s changed" % (label, path))


def refused_output(label, output, reason, folder, command=("run", scenario), **kwargs):
    refused(label, [*command, "-o", output], ["%s: error: cannot write the output: %s" % (output, reason)], folder,
            **kwargs)


with tempfile.TemporaryDirectory() as tmp:
    # ---- concurrency: N writers on one file ----
    writers, rounds = 12, 3
    shared = os.path.join(tmp, "shared.h5")
    started = time.monotonic()
    failures = []
    for _ in range(rounds):
        processes = [subprocess.Popen([gpuscale, "run", scenario, "-o", shared], stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True) for _ in range(writers)]
        for p in processes:
            _, err = p.communicate(timeout=120)
            if p.returncode != 0:
                failures.append(err)
    rows, texts = rows_of(shared)
    total = writers * rounds
    check(not failures, "every concurrent run exits 0: %s" % failures[:2])
    check(len(rows) == total, "%d concurrent runs in %d rounds: %d rows, expected %d" % (writers, rounds, len(rows), total))
    check(sorted(int(r["run_id"]) for r in rows) == list(range(1, total + 1)), "run ids 1..%d, each once" % total)
    check(texts == total, "one scenario text per row: %d" % texts)
    check(not [n for n in os.listdir(tmp) if ".tmp." in n], "no temporary file left: %s" % os.listdir(tmp))
    print("concurrency: %d writers x %d rounds, %d rows, %.1f s" % (writers, rounds, len(rows), time.monotonic() - started))

    # runs appending to the file of a running sweep
    sweep = os.path.join(tmp, "sweep.yaml")
    with open(sweep, "w") as f:
        f.write("scenario:\n  name: concurrent\n  platform: %s\n  workload: %s\n  global_batch_size: 2048\n"
                "  micro_batch_size: 32\n  collective: ring\nsweep:\n  gpus: [8, 16]\n  zero_stage: [0, 1, 2, 3]\n"
                % (os.path.join(source_dir, "platforms", "dgx-h100-4node-rail.yaml"),
                   os.path.join(source_dir, "workloads", "resnet50.yaml")))
    mixed = os.path.join(tmp, "mixed.h5")
    sweeper = subprocess.Popen([gpuscale, "sweep", sweep, "-o", mixed, "-j", "2", "--flush-rows", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    runners = []
    while sweeper.poll() is None and len(runners) < 8:
        if os.path.exists(mixed):
            runners.append(subprocess.Popen([gpuscale, "run", scenario, "-o", mixed], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE, text=True))
        time.sleep(0.02)
    sweep_out, sweep_err = sweeper.communicate(timeout=300)
    run_codes = [p.wait(timeout=120) for p in runners]
    rows, texts = rows_of(mixed)
    points = sorted(int(r["sweep_point"]) for r in rows if r["sweep_id"])
    check(sweeper.returncode == 0, "the sweep exits 0: %s" % sweep_err)
    check(all(code == 0 for code in run_codes), "the runs beside it exit 0: %s" % run_codes)
    check(points == list(range(8)), "every sweep point is in the file once: %s" % points)
    check(len(rows) == 8 + len(runners) and texts == len(rows),
          "8 sweep rows and %d run rows, got %d rows and %d texts" % (len(runners), len(rows), texts))
    check(len(runners) > 0, "runs were started while the sweep ran")

    # a held lock: wait for it, or give up past the timeout
    locked_dir = os.path.join(tmp, "locked")
    os.makedirs(locked_dir)
    locked = os.path.join(locked_dir, "r.h5")
    check(run_gpuscale(["run", scenario, "-o", locked]).returncode == 0, "a results file to lock")
    holder = os.open(locked_dir, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    env = dict(os.environ, GPUSCALE_LOCK_TIMEOUT_S="0.3")
    refused("a lock held past the timeout", ["run", scenario, "-o", locked],
            ["gpuscale: error: %s: another gpuscale process kept the results files of %s locked for 0.3 s; nothing was "
             "written (wait for it to finish, or set GPUSCALE_LOCK_TIMEOUT_S to wait longer)" % (locked, locked_dir)],
            locked_dir, protect=[locked], env=env)
    threading.Timer(0.5, lambda: os.close(holder)).start()
    waited = run_gpuscale(["run", scenario, "-o", locked], env=dict(os.environ, GPUSCALE_LOCK_TIMEOUT_S="20"))
    check(waited.returncode == 0 and len(rows_of(locked)[0]) == 2, "a lock released within the timeout: the run "
          "waits and appends (%s)" % waited.stderr)

    # ---- outputs that cannot be written safely ----
    out = os.path.join(tmp, "outputs")
    os.makedirs(out)
    folder = os.path.join(out, "folder")
    os.makedirs(folder)
    fifo = os.path.join(out, "pipe.h5")
    os.mkfifo(fifo)
    loop = os.path.join(out, "loop.h5")
    os.symlink("loop2.h5", loop)
    os.symlink("loop.h5", os.path.join(out, "loop2.h5"))
    dangling = os.path.join(out, "dangling.h5")
    os.symlink("nowhere.h5", dangling)
    target = os.path.join(out, "target.h5")
    check(run_gpuscale(["run", scenario, "-o", target]).returncode == 0, "a results file to link to")
    link = os.path.join(out, "link.h5")
    os.symlink("target.h5", link)

    refused_output("run -o a directory", folder, "it is a directory", out)
    refused_output("run -o a FIFO", fifo, "not a regular file (a device, pipe or socket)", out)
    refused_output("run -o a device", "/dev/null", "not a regular file (a device, pipe or socket)", out)
    refused_output("run -o a symbolic link loop", loop, "it is a loop of symbolic links", out)
    refused_output("run -o a link to a missing file", dangling,
                   "it is a symbolic link to 'nowhere.h5', which does not exist", out)
    refused_output("run -o in a missing folder", os.path.join(out, "missing", "r.h5"),
                   "the folder '%s' does not exist" % os.path.join(out, "missing"), out)
    refused_output("run -o under a file", os.path.join(target, "r.h5"), "'%s' is not a folder" % target, out,
                   protect=[target])
    copied = os.path.join(out, "scenario.yaml")
    with open(copied, "w") as f:
        f.write(open(scenario).read().replace("../", source_dir + "/"))
    refused_output("run -o its own scenario", copied, "it is the input %s" % copied, out, command=("run", copied),
                   protect=[copied])
    refused_output("plan -o a directory", folder, "it is a directory", out, command=("plan", scenario))
    refused_output("sweep -o a directory", folder, "it is a directory", out, command=("sweep", sweep))
    refused_output("sweep -o its own sweep file", sweep, "it is the input %s" % sweep, tmp, command=("sweep", sweep),
                   protect=[sweep])
    platform_copy = os.path.join(out, "platforms")
    shutil.copytree(os.path.join(source_dir, "platforms"), platform_copy)
    exported = os.path.join(platform_copy, "dgx-a100-1node.yaml")
    refused_output("platform export -o its input", exported, "it is the input %s" % exported, platform_copy,
                   command=("platform", "export", exported), protect=[exported])
    refused_output("platform export -o a FIFO", fifo, "not a regular file (a device, pipe or socket)", out,
                   command=("platform", "export", exported))
    refused_output("merge -o one of its inputs", mixed, "it is the input %s" % mixed, tmp, command=("merge", mixed),
                   protect=[mixed])

    # a sweep whose output is refused after the journal was opened leaves no journal
    foreign = os.path.join(out, "foreign.h5")
    with open(foreign, "w") as f:
        f.write("not results\n")
    refused("sweep -o a file that is not a results file", ["sweep", sweep, "-o", foreign],
            ["gpuscale: error: %s: not an HDF5 file (corrupt, truncated, or another format)" % foreign], out,
            protect=[foreign])

    # a link to a results file: the link stays, its target gets the row
    linked = run_gpuscale(["run", scenario, "-o", link])
    check(linked.returncode == 0, "run -o a link: exit 0 (%s)" % linked.stderr)
    check(os.path.islink(link) and os.readlink(link) == "target.h5", "run -o a link: the link is kept")
    check(len(rows_of(target)[0]) == 2, "run -o a link: its target has the new row")

    # a read-only file system (needs a mount: root, outside most containers' limits)
    mounts = os.path.join(tmp, "mounts")
    os.makedirs(mounts)
    readonly = os.path.join(mounts, "readonly")
    os.makedirs(readonly)
    can_mount = os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,ro", "tmpfs", readonly],
                                                     capture_output=True).returncode == 0
    if can_mount:
        refused_output("run -o on a read-only file system", os.path.join(readonly, "r.h5"),
                       "cannot create files in the folder '%s' (Read-only file system)" % readonly, readonly)
        subprocess.run(["umount", readonly])
    else:
        print("SKIPPED: read-only file system (cannot mount a tmpfs here)")

    # ---- a full disk and the file size limit ----
    def file_size_limit(blocks_of_1k):
        def limit():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() fails with EFBIG instead of killing
            resource.setrlimit(resource.RLIMIT_FSIZE, (blocks_of_1k * 1024, blocks_of_1k * 1024))
        return limit

    limited = os.path.join(tmp, "limited")
    os.makedirs(limited)
    fresh = os.path.join(limited, "new.h5")
    reason = "the file size limit is reached (File too large)"
    refused("a new results file past the file size limit", ["run", scenario, "-o", fresh],
            ["gpuscale: error: %s: cannot write the results file: %s; nothing was written" % (fresh, reason)], limited,
            preexec_fn=file_size_limit(64))
    grown = os.path.join(limited, "grown.h5")
    check(run_gpuscale(["run", scenario, "-o", grown]).returncode == 0, "a results file to grow")
    size_kib = os.path.getsize(grown) // 1024
    refused("an append past the file size limit (at the copy)", ["run", scenario, "-o", grown],
            ["gpuscale: error: %s: cannot write the results file: %s; nothing was written" % (grown, reason)], limited,
            protect=[grown], preexec_fn=file_size_limit(size_kib // 2))
    refused("an append past the file size limit (at the flush)", ["run", scenario, "-o", grown],
            ["gpuscale: error: %s: cannot write the results file: %s; nothing was written" % (grown, reason)], limited,
            protect=[grown], preexec_fn=file_size_limit(size_kib + 1))

    small = os.path.join(mounts, "small")
    os.makedirs(small)
    if os.geteuid() == 0 and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", small],
                                            capture_output=True).returncode == 0:
        try:
            full = os.path.join(small, "r.h5")
            check(run_gpuscale(["run", scenario, "-o", full]).returncode == 0, "a results file on a 200 KiB tmpfs")
            refused("an append to a full disk", ["run", scenario, "-o", full],
                    ["gpuscale: error: %s: cannot write the results file: the disk is full (No space left on device); "
                     "nothing was written" % full], small, protect=[full])
            os.remove(full)
            with open(os.path.join(small, "ballast"), "wb") as f:
                f.write(b"\0" * 120 * 1024)
            refused("a new results file on a full disk", ["run", scenario, "-o", full],
                    ["gpuscale: error: %s: cannot write the results file: the disk is full (No space left on device); "
                     "nothing was written" % full], small)
        finally:
            subprocess.run(["umount", small])
    else:
        print("SKIPPED: full disk on a tmpfs (cannot mount one here; the file size limit cases above ran)")

tally.finish()
