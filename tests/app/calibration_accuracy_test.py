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

# The committed calibration must stay at least this good on its in-scope results (docs/VALIDATION.md,
# "Targets"): leave-one-system-out median absolute percentage error over the results on <= 8
# accelerators. The committed calibration (v3.0-v5.0, 222 such results) measures 5.0 %; the v3.0-v4.1
# results alone measured 3.0 %. What the v5.0 results add is mostly B200's Llama 2 LoRA (the model's
# step 23 % slower than the logs show) and tinycorp's boxes (docs/LIMITS.md, "What the v3.0-v5.0
# calibration misses").
# The threshold leaves 10 % of the measured figure for the fit's run-to-run tolerance.
MAX_LOSO_MEDIAN_APE_PCT = 5.5

mlperf = mlperf_data_dir(source_dir, "scores_calibration.csv")
tally = Tally()
validated = subprocess.run([gpuscale, "validate", "--mlperf", mlperf, "--max-accelerators", "8", "-j", "2",
                            "--max-median-ape", str(MAX_LOSO_MEDIAN_APE_PCT)], capture_output=True, text=True)
tally.check(validated.returncode == 0, "the committed calibration's leave-one-system-out median APE on <= 8 "
            "accelerators stays within %.1f %%: %s" % (MAX_LOSO_MEDIAN_APE_PCT, validated.stderr[-500:]))
print("\n".join(line for line in validated.stdout.splitlines() if line.strip().startswith("all ")))
tally.finish()
