#!/usr/bin/python3
"""The committed calibration's accuracy on the real MLPerf results ($GPUSCALE_MLPERF_DIR, default
../shared/mlperf): `gpuscale validate` must keep the leave-one-system-out median error within the
stated threshold. Skipped (exit 77) without the data, failed with GPUSCALE_REQUIRE_MLPERF=1.
Usage: calibration_accuracy_test.py BUILD_DIR SOURCE_DIR"""

import os
import subprocess
import sys

build_dir, source_dir = sys.argv[1], sys.argv[2]
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402
from mlperf_data import mlperf_data_dir  # noqa: E402

# The committed calibration must stay at least this good on its in-scope results (docs/CALIBRATION.md):
# leave-one-system-out median absolute percentage error over the results on <= 8 accelerators.
# 6.9 % with the kernel model from shapes and every efficiency <= 1 (6.4 % before it, with compute and
# memory efficiencies up to 1.45 and 3); it was 3.7-4.3 % while the single-node links ran at twice
# their line rate, a fitted factor at its bound that hid the single-node systems' other errors
# (docs/CALIBRATION.md, "What the link model cost"). 7.45 % since the overheads carry a prior (10 s per
# run, 5 ms per step): on one node they were free to absorb other errors; the prior keeps them
# physical, which took the scale-extrapolation ResNet-50 error from 264 % to 26 % and leave-family-out
# beyond 512 accelerators from 132 % to 28 % (docs/CALIBRATION.md, "Priors on the two overheads").
# 3.0 % since the fit's loss is robust (pseudo-Huber, docs/CALIBRATION.md, "Robust loss"), when the
# threshold came down from 7.5 % to 5.0 %; 3.0 % again against the published (RCP-scaled) scores.
MAX_LOSO_MEDIAN_APE_PCT = 5.0

mlperf = mlperf_data_dir(source_dir, "scores_calibration.csv")
tally = Tally()
validated = subprocess.run([gpuscale, "validate", "--mlperf", mlperf, "--max-accelerators", "8", "-j", "2",
                            "--max-median-ape", str(MAX_LOSO_MEDIAN_APE_PCT)], capture_output=True, text=True)
tally.check(validated.returncode == 0, "the committed calibration's leave-one-system-out median APE on <= 8 "
            "accelerators stays within %.1f %%: %s" % (MAX_LOSO_MEDIAN_APE_PCT, validated.stderr[-500:]))
print("\n".join(line for line in validated.stdout.splitlines() if line.strip().startswith("all ")))
tally.finish()
