#!/usr/bin/python3
"""The table of bad inputs (tests/data/invalid/): every file gets exactly the located messages it
states, exit code 2, nothing on stdout, and no output file created or changed.

Each file starts with its expected messages, one per line:
    # expect: {file}:7:9: error: /scenario/gpus: the scenario asks for 16 GPUs but platform ... has 8
(.json files cannot hold comments: theirs are in <name>.json.expect). Placeholders: {file} the file
itself, {dir} its folder, {invalid} tests/data/invalid, {repo} the source tree. The folder decides
the command: scenarios/ -> gpuscale run FILE -o OUT, sweeps/ -> gpuscale sweep FILE -o OUT, every
other kind -> gpuscale check FILE. run and sweep are tried with an output that does not exist (it must
not appear) and with an existing results file (it must stay byte-identical).

Inputs too large to commit (a 10 GB file, a 15 MB line) and odd file kinds (a directory, a FIFO, a
missing file) are generated here. Last, every shipped input must pass `gpuscale check`, so the readers'
checks refuse nothing valid. Usage: invalid_inputs_test.py BUILD_DIR SOURCE_DIR"""

import os
import shutil
import subprocess
import sys
import tempfile

build_dir, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
invalid_dir = os.path.join(source_dir, "tests", "data", "invalid")
TRAILER = "gpuscale: %d error(s); nothing was written"
TIMEOUT_S = 60
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check


def expectations(path):
    """The `# expect:` lines of `path` (or of its .expect sidecar), placeholders filled in."""
    source = path + ".expect" if path.endswith(".json") else path
    lines = []
    with open(source, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if not line.startswith("# expect: "):
                break
            lines.append(line[len("# expect: "):].replace("{file}", path).replace("{dir}", os.path.dirname(path))
                         .replace("{invalid}", invalid_dir).replace("{repo}", source_dir))
    return lines


def listing(directory):
    return sorted(os.listdir(directory))


def file_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def run_gpuscale(args, cwd):
    try:
        return subprocess.run([gpuscale, *args], capture_output=True, cwd=cwd, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None


def assert_refused(label, args, expected, cwd, outputs=()):
    """gpuscale `args` exits 2 with exactly `expected` on stderr and writes nothing in `cwd`."""
    before = listing(cwd)
    snapshots = {path: file_bytes(path) for path in outputs if os.path.exists(path)}
    result = run_gpuscale(args, cwd)
    if result is None:
        check(False, "%s: no answer within %d s" % (label, TIMEOUT_S))
        return
    stderr = result.stderr.decode("utf-8", "replace").splitlines()
    want = expected + [TRAILER % len(expected)]
    check(result.returncode == 2, "%s: exit code %d, expected 2" % (label, result.returncode))
    if stderr != want:
        check(False, "%s: stderr differs\n  expected:\n    %s\n  got:\n    %s"
              % (label, "\n    ".join(want), "\n    ".join(stderr)))
    else:
        check(True, label)
    check(result.stdout == b"", "%s: nothing on stdout, got %r" % (label, result.stdout[:200]))
    check(listing(cwd) == before, "%s: files appeared or vanished: %s -> %s" % (label, before, listing(cwd)))
    for path, content in snapshots.items():
        check(file_bytes(path) == content, "%s: %s changed" % (label, path))


def refuse_everywhere(label, path, kind, expected, work):
    """Runs the command(s) for `kind` on `path` in the scratch folder `work`."""
    if kind in ("scenarios", "sweeps"):
        command = "run" if kind == "scenarios" else "sweep"
        assert_refused(label + " (new output)", [command, path, "-o", os.path.join(work, "new.h5")], expected, work)
        assert_refused(label + " (existing output)", [command, path, "-o", os.path.join(work, "existing.h5")],
                       expected, work, [os.path.join(work, "existing.h5")])
    else:
        assert_refused(label, ["check", path], expected, work)


with tempfile.TemporaryDirectory() as tmp:
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    made = subprocess.run([gpuscale, "run", os.path.join(source_dir, "scenarios", "default.yaml"), "-o",
                           os.path.join(work, "existing.h5")], capture_output=True, text=True)
    check(made.returncode == 0, "an existing results file to protect: " + made.stderr)

    # ---- the committed table ----
    cases = 0
    for kind in sorted(os.listdir(invalid_dir)):
        folder = os.path.join(invalid_dir, kind)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".expect"):
                continue
            path = os.path.join(folder, name)
            expected = expectations(path)
            check(expected, "%s/%s states no expected message" % (kind, name))
            refuse_everywhere("%s/%s" % (kind, name), path, kind, expected, work)
            cases += 1
    check(cases >= 40, "at least 40 committed bad inputs, found %d" % cases)

    # ---- generated inputs ----
    generated = os.path.join(tmp, "generated")
    os.makedirs(generated)

    huge = os.path.join(generated, "ten-gigabytes.yaml")  # sparse: no disk used, no time spent
    with open(huge, "wb") as f:
        f.write(b"scenario:\n  name: ")
        f.truncate(10 * 1024 ** 3)
    message = "%s: error: file is %d bytes; inputs larger than 16777216 bytes are refused" % (huge, 10 * 1024 ** 3)
    refuse_everywhere("generated: a 10 GiB scenario", huge, "scenarios", [message], work)
    refuse_everywhere("generated: a 10 GiB file to check", huge, "check", [message], work)

    long_line = os.path.join(generated, "fifteen-megabyte-line.yaml")
    value = "a" * 15_000_000
    with open(long_line, "w") as f:
        f.write("scenario:\n  name: Z%s\n" % value)
    # The value is quoted back shortened (config::kMaxMessageBytes = 1024): its start and end, and how
    # much was left out.
    message = "expected a lower-case name ([a-z0-9][a-z0-9._-]*), got 'Z%s'" % value
    keep = 1024 // 2 - 32
    shortened = "%s [... %d bytes omitted ...] %s" % (message[:keep], len(message) - 2 * keep, message[-keep:])
    refuse_everywhere("generated: a 15 MB line", long_line, "scenarios", [
        "%s:2:9: error: /scenario/name: %s" % (long_line, shortened),
        "%s:2:3: error: /scenario/platform: missing required key 'platform'" % long_line,
        "%s:2:3: error: /scenario/workload: missing required key 'workload'" % long_line,
        "%s:2:3: error: /scenario/gpus: missing required key 'gpus'" % long_line,
        "%s:2:3: error: /scenario/global_batch_size: missing required key 'global_batch_size'" % long_line,
        "%s:2:3: error: /scenario/micro_batch_size: missing required key 'micro_batch_size'" % long_line,
    ], work)

    deep = os.path.join(generated, "deep-block-nesting.yaml")
    with open(deep, "w") as f:
        f.write("- " * 100_000 + "x\n")
    refuse_everywhere("generated: 100000 nested block lists", deep, "check",
                      ["%s:1:1000: error: YAML nesting too deep (500 levels of lists or mappings)" % deep], work)

    refuse_everywhere("generated: a folder", generated, "check",
                      ["%s: error: cannot read file: it is a directory" % generated], work)
    missing = os.path.join(generated, "missing.yaml")
    refuse_everywhere("generated: a missing file", missing, "scenarios",
                      ["%s: error: cannot read file: No such file or directory" % missing], work)
    fifo = os.path.join(generated, "pipe.yaml")
    os.mkfifo(fifo)  # nobody writes to it: reading it would block forever
    refuse_everywhere("generated: a FIFO", fifo, "check",
                      ["%s: error: cannot read file: not a regular file (a device, pipe or socket)" % fifo], work)

    # ---- and every shipped input passes the same checks ----
    shipped = []
    for folder in ("platforms", "platforms/catalog", "workloads", "workloads/convergence", "workloads/host_input",
                   "scenarios", "scenarios/mlperf", "bench", "calibration"):
        directory = os.path.join(source_dir, folder)
        if os.path.isdir(directory):
            shipped += [os.path.join(directory, name) for name in sorted(os.listdir(directory))
                        if name.endswith(".yaml")]
    mlperf = os.environ.get("GPUSCALE_MLPERF_DIR", os.path.join(source_dir, "..", "shared", "mlperf"))
    for pattern_dir, suffix in ((os.path.join(mlperf, "rcps", "training_4.1.0"), ".json"),):
        if os.path.isdir(pattern_dir):
            shipped += [os.path.join(pattern_dir, name) for name in sorted(os.listdir(pattern_dir)) if name.endswith(suffix)]
    accepted = subprocess.run([gpuscale, "check", *shipped], capture_output=True, text=True, cwd=work)
    check(accepted.returncode == 0, "gpuscale check accepts every shipped input: " + accepted.stderr)
    lines = accepted.stdout.splitlines()
    check(len(lines) == len(shipped) and all(line.startswith(path + ": ok: ") for line, path in zip(lines, shipped)),
          "one 'ok' line per shipped input:\n" + accepted.stdout)

tally.finish()
