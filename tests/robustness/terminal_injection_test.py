#!/usr/bin/python3
"""Terminal and line injection: text from input files reaches the terminal through one sanitiser
(config/PrintableText.hpp), so escape sequences and newlines in MLPerf logs, MLPerf system JSON, nccl-tests
logs, folder and file names come out as `\\x1b`, `\\n`: no output of any command below holds a control
character other than its own line ends, and no line starts with a forged `gpuscale:` or `forged`.

Inputs: a run_stop status, a submission_benchmark and a result folder name of an MLLOG log (mlperf import,
calibrate --list-excluded); a system_name and an accelerator_model_name of a system description (check,
predict, predict --format json); an nccl-tests device name (calibrate-network); an output path (run -o into a
missing folder, run -o a file that is not a results file).
Usage: terminal_injection_test.py BUILD_DIR SOURCE_DIR"""

import json
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
ESCAPES = "\x1b[2J\x1b]0;owned\x07\r\ngpuscale: forged"
JSON_ESCAPES = json.dumps(ESCAPES)[1:-1]  # as a JSON string writes them: \u001b, \n, ...


def run(*args):
    return subprocess.run([gpuscale, *args], capture_output=True, timeout=300)


def clean(what, ran, quoted=True, progress=False):
    """No control byte but the line ends (and the carriage returns of a `progress` line, which are the
    command's own); no forged line; the value shown escaped where `quoted`."""
    text = ran.stdout + ran.stderr
    allowed = (0x0a, 0x0d) if progress else (0x0a,)
    controls = sorted({b for b in text if (b < 0x20 and b not in allowed) or b == 0x7f})
    check(not controls, "%s: control bytes %s reach the terminal:\n%r" % (what, controls, text[:2000]))
    lines = text.decode("utf-8", "replace").splitlines()
    forged = [line for line in lines if line.startswith("gpuscale: forged") or line.startswith("forged")]
    check(not forged, "%s: a forged line: %s" % (what, forged))
    if quoted:
        check(b"\\x1b[2J\\x1b]0;owned\\x07\\r\\ngpuscale: forged" in text,
              "%s: the value is shown escaped:\n%s" % (what, text.decode("utf-8", "replace")[:2000]))


with tempfile.TemporaryDirectory() as tmp:
    # MLLOG logs: a run_stop status, a benchmark name, a folder name.
    mlperf = os.path.join(tmp, "mlperf")
    shutil.copytree(os.path.join(source_dir, "tests", "data", "mlperf"), mlperf)
    results = os.path.join(mlperf, "results", "v9.9")
    status_log = os.path.join(results, "Acme__broken4", "bert", "result_3.txt")
    with open(status_log) as f:
        text = f.read()
    with open(status_log, "w") as f:
        f.write(text.replace('"status": "success"', '"status": "%s"' % JSON_ESCAPES, 1))
    benchmark_log = os.path.join(results, "Acme__broken4", "bert", "result_4.txt")
    with open(benchmark_log) as f:
        text = f.read()
    with open(benchmark_log, "w") as f:
        f.write(text.replace('"key": "submission_benchmark", "value": "bert"',
                             '"key": "submission_benchmark", "value": "%s"' % JSON_ESCAPES, 1))
    imported = os.path.join(tmp, "imported.h5")
    ran = run("mlperf", "import", mlperf, "-o", imported)
    check(ran.returncode == 0, "mlperf import: " + ran.stderr.decode())
    clean("mlperf import (log values)", ran)
    ran = run("calibrate", "--mlperf", mlperf, "-o", os.path.join(tmp, "calibration.yaml"), "--list-excluded")
    clean("calibrate --list-excluded (log values)", ran, quoted=False, progress=True)

    renamed = os.path.join(tmp, "mlperf-folder")
    shutil.copytree(mlperf, renamed)
    os.rename(os.path.join(renamed, "results", "v9.9", "Acme__broken4"),
              os.path.join(renamed, "results", "v9.9", "Acme__broken4" + "\x1b[2J\x1b]0;owned\x07"))
    ran = run("mlperf", "import", renamed, "-o", os.path.join(tmp, "renamed.h5"))
    clean("mlperf import (a folder name)", ran, quoted=False)

    # MLPerf system JSON: system_name (printed by check, predict) and accelerator_model_name (an error).
    with open(os.path.join(source_dir, "tests", "data", "mlperf", "hand_built_mi300x_8.json")) as f:
        system = json.load(f)
    named = dict(system, system_name=system["system_name"] + ESCAPES)
    named_path = os.path.join(tmp, "named.json")
    with open(named_path, "w") as f:
        json.dump(named, f)
    ran = run("check", named_path)
    check(ran.returncode == 0, "check of the named system: " + ran.stderr.decode())
    clean("check (system_name)", ran)
    ran = run("predict", "--system", named_path, "--benchmark", "bert")
    check(ran.returncode == 0, "predict on the named system: " + ran.stderr.decode())
    clean("predict (system_name)", ran)
    ran = run("predict", "--system", named_path, "--benchmark", "bert", "--format", "json")
    clean("predict --format json (system_name)", ran, quoted=False)
    check(ran.returncode == 0 and json.loads(ran.stdout)["system"].endswith("\\n" + "gpuscale: forged"),
          "the JSON keeps the escaped text: " + ran.stdout.decode()[:500])
    accelerator = dict(system, accelerator_model_name="AMD " + ESCAPES)
    accelerator_path = os.path.join(tmp, "accelerator.json")
    with open(accelerator_path, "w") as f:
        json.dump(accelerator, f)
    for args in (("check", accelerator_path), ("predict", "--system", accelerator_path, "--benchmark", "bert")):
        ran = run(*args)
        check(ran.returncode == 2, "%s: exit %d" % (args[0], ran.returncode))
        clean("%s (accelerator_model_name in an error)" % args[0], ran)

    # nccl-tests: a device name quoted in an error.
    with open(os.path.join(source_dir, "tests", "data", "nccl-tests", "all_reduce_1node_8xh100.txt")) as f:
        text = f.read()
    device_log = os.path.join(tmp, "device.txt")
    with open(device_log, "w") as f:
        f.write(text.replace("NVIDIA H100 80GB HBM3", "NVIDIA\x1b[2J\x1b]0;owned\x07H100", 1))
    ran = run("calibrate-network", "--platform", os.path.join(source_dir, "platforms", "dgx-h100-1node.yaml"),
              "--nccl-tests", device_log, "-o", os.path.join(tmp, "network.yaml"))
    check(ran.returncode == 2, "calibrate-network on the renamed device: exit %d" % ran.returncode)
    clean("calibrate-network (a device name in an error)", ran, quoted=False)

    # Paths: an output in a missing folder (a ConfigError) and a file that is not a results file (not one).
    scenario = os.path.join(source_dir, "scenarios", "default.yaml")
    ran = run("run", scenario, "-o", os.path.join(tmp, "missing" + ESCAPES, "out.h5"))
    check(ran.returncode == 2, "run -o into a missing folder: exit %d" % ran.returncode)
    clean("run -o into a missing folder", ran)
    foreign = os.path.join(tmp, "notes" + ESCAPES)
    with open(foreign, "w") as f:
        f.write("text\n")
    ran = run("run", scenario, "-o", foreign)
    check(ran.returncode == 2, "run -o a text file: exit %d" % ran.returncode)
    clean("run -o a text file named with escapes", ran)

tally.finish()
