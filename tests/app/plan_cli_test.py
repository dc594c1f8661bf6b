#!/usr/bin/python3
"""gpuscale plan's layout search and predict's batch choice as a user meets them: every scenario plan
writes (--emit) runs under `gpuscale run` to exactly the iteration time plan printed; on Llama 2 70B LoRA
over 32 V100 + 32 H100 the plan uses tensor parallelism; with cuda_graph: true no ZeRO-3 candidate is
simulated with CUDA graphs; predict without --gbs keeps a batch no slower than the calibration rule's
and names the rule's batch where it differs. Usage: plan_cli_test.py BUILD_DIR SOURCE_DIR"""

import json
import os
import re
import subprocess
import sys
import tempfile

import pandas as pd

build_dir, source_dir = sys.argv[1], sys.argv[2]
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check


def run(*args):
    return subprocess.run([gpuscale, *args], capture_output=True, text=True)


def scenario_copy(tmp, relative, name, extra=""):
    """A copy of the scenario at `relative` under `tmp`, its paths made absolute, `extra` lines appended."""
    path = os.path.abspath(os.path.join(source_dir, relative))
    with open(path) as f:
        text = f.read()
    text = re.sub(r"(platform|workload): (\S+)",
                  lambda m: "%s: %s" % (m.group(1), os.path.normpath(os.path.join(os.path.dirname(path), m.group(2)))),
                  text)
    copy = os.path.join(tmp, name)
    with open(copy, "w") as f:
        f.write(text + extra)
    return copy


def planned(tmp, scenario, name, *options):
    """Runs plan with --emit and -o; checks that `run` of the emitted scenario gives the printed
    iteration time exactly. Returns (stdout, emitted YAML text, plan's results rows)."""
    emitted = os.path.join(tmp, name + "-planned.yaml")
    rows_file = os.path.join(tmp, name + "-plan.h5")
    out = run("plan", scenario, "--emit", emitted, "-o", rows_file, *options)
    check(out.returncode == 0, "plan %s runs: %s" % (name, out.stderr))
    if out.returncode != 0:
        return out.stdout, "", None
    printed = re.search(r"^iteration  (\S+) s \(gpuscale run of the scenario below\)$", out.stdout, re.M)
    check(printed is not None, "plan %s prints the emitted scenario's iteration time: %s" % (name, out.stdout))
    again = os.path.join(tmp, name + "-run.h5")
    rerun = run("run", emitted, "-o", again)
    check(rerun.returncode == 0, "run of the scenario plan %s emitted: %s" % (name, rerun.stderr))
    if printed and rerun.returncode == 0:
        iteration_s = pd.read_hdf(again, "runs")["iter_time_s"].iloc[0]
        check(float(printed.group(1)) == iteration_s,
              "plan %s printed %s s, run of its scenario gives %r s" % (name, printed.group(1), iteration_s))
    with open(emitted) as f:
        return out.stdout, f.read(), pd.read_hdf(rows_file, "runs")


def key(yaml_text, name):
    found = re.search(r"^  %s: (\S+)$" % name, yaml_text, re.M)
    return found.group(1) if found else None


with tempfile.TemporaryDirectory() as tmp:
    # Poplar's V100 + T4 cluster, the scenario's own stage: the emitted allocation reruns exactly.
    planned(tmp, os.path.join(source_dir, "scenarios", "poplar", "bert-large-v100-t4.yaml"), "poplar")

    # The newcomer's case: Llama 2 70B LoRA on 32 V100 32GB + 32 H100. No data-parallel layout holds the
    # frozen weights at ZeRO-0; the search places model parallelism (tensor, context or pipeline) on the
    # H100s alone.
    out, emitted, rows = planned(tmp, os.path.join(source_dir, "scenarios", "plan", "llama2-70b-lora-v100-h100.yaml"),
                                 "llama")
    degrees = [int(key(emitted, k) or 1) for k in ("tp", "cp", "pp")] if emitted else [1]
    check(emitted and degrees[0] * degrees[1] * degrees[2] > 1, "the Llama plan splits the model: " + emitted)
    check(emitted and (degrees[0] == 1 or key(emitted, "sequence_parallel") == "true"),
          "tensor parallelism with sequence parallelism: " + emitted)
    check(emitted and int(key(emitted, "gpus")) == 32, "on the 32 H100 alone: " + emitted)
    check("plan: no allocation fits" not in out and rows is not None and
          ((rows["tp"] * rows["cp"] * rows["pp"]) > 1).any(), "the layout row records the model split")

    # cuda_graph: true with every stage: ZeRO-3 is searched eagerly (run refuses it with graphs), and the
    # chosen scenario runs.
    graphs = scenario_copy(tmp, os.path.join("scenarios", "poplar", "bert-large-v100-t4.yaml"), "graphs.yaml",
                           "  cuda_graph: true\n")
    out, emitted, rows = planned(tmp, graphs, "graphs", "--all-stages")
    if rows is not None:
        check((rows["zero_stage"] == 3).any(), "ZeRO-3 is searched")
        check(not ((rows["zero_stage"] == 3) & (rows["cuda_graph"] == 1)).any(),
              "no ZeRO-3 row is simulated with CUDA graphs")
        check(((rows["zero_stage"] < 3) & (rows["cuda_graph"] == 1)).any(), "the other stages keep the scenario's graphs")
    check(emitted and not (key(emitted, "zero_stage") == "3" and key(emitted, "cuda_graph") == "true"),
          "the emitted scenario is no ZeRO-3 with graphs: " + emitted)

    # --search-global-batch: the batch of least time to train among the convergence table's, emitted.
    out, emitted, rows = planned(tmp, os.path.join(source_dir, "scenarios", "poplar", "bert-large-v100-t4.yaml"),
                                 "batch", "--search-global-batch")
    if rows is not None and emitted:
        best = rows[rows["outcome"] == rows["outcome"].iloc[0]]["time_to_train_min"].min()
        check(abs(rows[rows["global_batch_size"] == int(key(emitted, "global_batch_size"))]["time_to_train_min"].min()
                  - best) < 1e-9, "the emitted batch has the least time to train of the rows")

# predict on 128 A100 (16 DGX A100), BERT, without --gbs: a batch no slower than the calibration rule's,
# and the rule's batch and time named where it differs; --gbs pins the batch.
system = os.path.join(source_dir, "tests", "data", "mlperf", "hand_built_dgx_a100_16node.json")
free = run("predict", "--system", system, "--benchmark", "bert", "--format", "json")
check(free.returncode == 0, "predict BERT on 128 A100: " + free.stderr)
if free.returncode == 0:
    result = json.loads(free.stdout)
    rule = result["global_batch_size_rule"]
    pinned = run("predict", "--system", system, "--benchmark", "bert", "--gbs", str(rule), "--format", "json")
    check(pinned.returncode == 0, "predict at the rule's batch: " + pinned.stderr)
    rule_minutes = json.loads(pinned.stdout)["predicted_minutes"]
    check(result["predicted_minutes"] <= rule_minutes,
          "the chosen batch %d (%.4g min) is no slower than the rule's %d (%.4g min)"
          % (result["global_batch_size"], result["predicted_minutes"], rule, rule_minutes))
    if result["global_batch_size"] != rule:
        check(abs(result["rule_predicted_minutes"] - rule_minutes) < 1e-4 * rule_minutes,
              "the rule's time is the time predicted at the rule's batch")
        check(any(("is %d " % rule) in note for note in result["notes"]), "a note names the rule's batch")
    check(json.loads(pinned.stdout)["global_batch_size"] == rule, "--gbs pins the batch")

tally.finish()
