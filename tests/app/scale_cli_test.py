#!/usr/bin/python3
"""run and predict at 100,000 accelerators: refused at once, with the limit in the message, before
anything is built. Usage: scale_cli_test.py BUILD_DIR SOURCE_DIR"""

import os
import subprocess
import sys
import tempfile
import time

build_dir, source_dir = sys.argv[1], os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check


def run(*args):
    start = time.monotonic()
    done = subprocess.run([gpuscale, *args], capture_output=True, text=True, timeout=120)
    return done, time.monotonic() - start


limit = "gpuscale simulates at most 8192 in one run (time and memory grow faster than linearly beyond)"
system = os.path.join(source_dir, "tests", "data", "mlperf", "hand_built_dgx_b200_12500node.json")
done, seconds = run("predict", "--system", system, "--benchmark", "bert")
check(done.returncode == 2 and done.stderr == "gpuscale: error: system %s has 100000 accelerators; %s\n" % (system, limit),
      done.stderr)
check(seconds < 5, "refused in %.1f s" % seconds)

with tempfile.TemporaryDirectory() as tmp:
    platform = os.path.join(tmp, "big.yaml")
    with open(platform, "w") as f:
        f.write("imports: [%s, %s]\ncluster:\n  name: big\n  node_groups:\n    - {node_type: dgx-b200, count: 12500}\n"
                "  fabric: {topology: fat_tree, switch_latency: \"0.5 us\", nodes_per_leaf: 32}\n"
                % (os.path.join(source_dir, "platforms", "catalog", "accelerators.yaml"),
                   os.path.join(source_dir, "platforms", "catalog", "node_types.yaml")))
    scenario = os.path.join(tmp, "big-scenario.yaml")
    with open(scenario, "w") as f:
        f.write("scenario:\n  name: big\n  platform: %s\n  workload: %s\n  gpus: 100000\n  global_batch_size: 100000\n"
                "  micro_batch_size: 1\n  zero_stage: 0\n" % (platform, os.path.join(source_dir, "workloads", "resnet50.yaml")))
    done, seconds = run("run", scenario)
    check(done.returncode == 2 and done.stderr == "gpuscale: error: scenario %s has 100000 accelerators; %s\n" % (scenario, limit),
          done.stderr)
    check(seconds < 5, "refused in %.1f s" % seconds)

sys.exit(tally.finish())
