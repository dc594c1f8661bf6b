#!/usr/bin/python3
"""Sweeps too large for the machine are stopped before they are expanded: refused with a message when
nobody can be asked, a question on a terminal, --yes to go on. (Absurd GPU counts are refused, located,
by the readers: tests/data/invalid/platforms/absurd_gpu_count.yaml, scenarios/absurd_gpus.yaml.)
Usage: sweep_limits_test.py BUILD_DIR SOURCE_DIR"""

import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time

build_dir, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check


def write_sweep(path, gpus, batches, description=""):
    """gpus x batches points on one DGX A100; only GPU counts up to 8 fit (skip_invalid skips the rest)."""
    with open(path, "w") as f:
        f.write("scenario:\n  name: large\n")
        f.write("  platform: %s\n  workload: %s\n  micro_batch_size: 1\n"
                % (os.path.join(source_dir, "platforms", "dgx-a100-1node.yaml"),
                   os.path.join(source_dir, "workloads", "resnet50.yaml")))
        if description:
            f.write("  input_pipeline: %s\n" % description)  # a long value: every point copies the text
        f.write("sweep:\n  gpus: [%s]\n  global_batch_size: [%s]\n  skip_invalid: true\n"
                % (", ".join(map(str, range(1, gpus + 1))), ", ".join(map(str, range(8, 8 * batches + 1, 8)))))


def run_on_terminal(args, answer):
    """Runs gpuscale with stdin and stderr on a pseudo-terminal, answers the question, returns (status, screen)."""
    master, slave = pty.openpty()
    process = subprocess.Popen([gpuscale, *args], stdin=slave, stderr=slave, stdout=subprocess.DEVNULL)
    os.close(slave)
    screen = b""
    deadline = time.time() + 60
    answered = False
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            screen += chunk
        if not answered and b"[y/N]" in screen:
            os.write(master, answer.encode() + b"\n")
            answered = True
        if process.poll() is not None and not ready:
            break
    status = process.wait(timeout=60)
    os.close(master)
    return status, screen.decode("utf-8", "replace")


with tempfile.TemporaryDirectory() as tmp:
    output = os.path.join(tmp, "out.h5")

    large = os.path.join(tmp, "large.yaml")
    write_sweep(large, 400, 400)  # 160,000 points: past the 100,000 that need a confirmation
    refused = subprocess.run([gpuscale, "sweep", large, "-o", output], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL)
    check(refused.returncode == 2, "a large sweep without a terminal is refused with exit 2, got %d" % refused.returncode)
    check(refused.stderr == "gpuscale: error: %s is a large sweep: it has 160000 points (more than 100000); not started "
          "(pass --yes to run it anyway, or split it with --shard)\n" % large, refused.stderr)
    check(not os.path.exists(output), "nothing written for a refused sweep")

    status, screen = run_on_terminal(["sweep", large, "-o", output], "n")
    check("is a large sweep: it has 160000 points (more than 100000).\r\nRun it anyway? [y/N]" in screen, screen)
    check(status == 1 and "sweep not started" in screen, "declined on a terminal: exit 1, got %d: %s" % (status, screen))
    check(not os.path.exists(output), "nothing written for a declined sweep")

    status, screen = run_on_terminal(["sweep", large, "--dry-run"], "y")
    check(status == 0, "accepted on a terminal: the sweep goes on (exit %d): %s" % (status, screen[-500:]))

    accepted = subprocess.run([gpuscale, "sweep", large, "--dry-run", "--yes"], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)
    check(accepted.returncode == 0, "--yes goes on: " + accepted.stderr[-500:])
    check("points     160000 in the product" in accepted.stdout, accepted.stdout[:500])

    # Every point copies the base scenario: 10 MB of it times 160,000 points fits no machine's memory.
    heavy = os.path.join(tmp, "heavy.yaml")
    write_sweep(heavy, 400, 400, "x" * 10_000_000)
    refused = subprocess.run([gpuscale, "sweep", heavy, "-o", output], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL)
    check(refused.returncode == 2, "a sweep larger than memory is refused, got %d" % refused.returncode)
    check(re.search(r"expanding it needs about 1\.\d TiB of memory; [\d.]+ [KMGT]?i?B is available", refused.stderr),
          refused.stderr)
    check(not os.path.exists(output), "nothing written for a sweep larger than memory")

    small = os.path.join(tmp, "small.yaml")
    write_sweep(small, 8, 2)
    listed = subprocess.run([gpuscale, "sweep", small, "--dry-run"], capture_output=True, text=True,
                            stdin=subprocess.DEVNULL)
    check(listed.returncode == 0 and "points     16 in the product" in listed.stdout, "a small sweep needs no --yes: "
          + listed.stdout[:300] + listed.stderr)

tally.finish()
