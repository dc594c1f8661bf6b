#!/usr/bin/python3
"""`gpuscale workload convergence` regenerates the committed BERT convergence table from the MLPerf
RCP file ($GPUSCALE_MLPERF_DIR, default ../shared/mlperf). Skipped (exit 77) without the data, failed
with GPUSCALE_REQUIRE_MLPERF=1. Usage: rcp_regeneration_test.py BUILD_DIR SOURCE_DIR"""

import os
import subprocess
import sys
import tempfile

build_dir, source_dir = sys.argv[1], sys.argv[2]
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402
from mlperf_data import mlperf_data_dir  # noqa: E402

rcp = os.path.join(mlperf_data_dir(source_dir, os.path.join("rcps", "training_4.1.0", "rcps_bert.json")),
                   "rcps", "training_4.1.0", "rcps_bert.json")
tally = Tally()
with tempfile.TemporaryDirectory() as tmp:
    table = os.path.join(tmp, "bert.yaml")
    with open(os.path.join(source_dir, "workloads", "convergence", "bert.yaml")) as f:
        committed = f.read()
    with open(table, "w") as f:
        f.write(committed.replace("samples: 2549219.5555555555", "samples: 1"))
    regenerated = subprocess.run([gpuscale, "workload", "convergence", "--rcp", rcp, "--benchmark", "bert", "-o", table],
                                 capture_output=True, text=True)
    tally.check(regenerated.returncode == 0, regenerated.stderr)
    with open(table) as f:
        tally.check(f.read() == committed, "gpuscale workload convergence regenerates the committed bert table")
tally.finish()
