#!/usr/bin/python3
"""gpuscale mlperf import / predict / validate as a user meets them: exit codes, located errors, the
HDF5 tables pandas reads, predict's JSON on hand-built system descriptions (no MLPerf data needed; the
calibration-accuracy check on the real data is calibration_accuracy_test.py).
Usage: mlperf_cli_test.py BUILD_DIR SOURCE_DIR"""

import json
import os
import subprocess
import sys
import tempfile

import pandas as pd

build_dir, source_dir = sys.argv[1], sys.argv[2]
gpuscale = os.path.join(build_dir, "gpuscale")
data = os.path.join(source_dir, "tests", "data", "mlperf")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check

def run(*args):
    return subprocess.run([gpuscale, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    h5 = os.path.join(tmp, "mlperf.h5")
    imported = run("mlperf", "import", data, "-o", h5)
    check(imported.returncode == 0, "import of the fixture: " + imported.stderr)
    check("imported   2 entries, 10 result logs (6 valid, 4 reported above and not averaged in)" in imported.stdout,
          imported.stdout)
    check("Acme__broken4/bert/result_2.txt:6: MLLOG line is not valid JSON" in imported.stderr, imported.stderr)
    check("Acme__box8/bert/result_3.txt:" in imported.stderr and "aborted" in imported.stderr, imported.stderr)
    scores = pd.read_hdf(h5, "mlperf_scores")
    runs = pd.read_hdf(h5, "mlperf_runs")
    check(len(scores) == 2 and len(runs) == 10, "two entries, ten runs")
    starts = sorted(float(r.first_block_ms - r.run_start_ms) for r in runs.itertuples() if r.first_block_ms > 0)
    check(starts == [500.0, 1000.0, 1500.0, 2000.0, 9000.0],
          "box8's runs start training 0.5-2 s (the aborted one 9 s) after run_start: " + str(starts))
    rates = sorted(round(float(r.training_rate_samples_per_s), 3) for r in runs.itertuples()
                   if r.training_rate_samples_per_s > 0)
    check(rates == [round(150000 / t, 3) for t in (255, 215, 195, 175)],
          "box8's valid runs train 150,000 samples between evaluations in 195, 175, 215 and 255 s: " + str(rates))
    box = scores[scores.system == b"box8"] if scores.system.dtype == object and isinstance(scores.system.iloc[0], bytes) \
        else scores[scores.system == "box8"]
    check(len(box) == 1 and abs(float(box.score_minutes.iloc[0]) - 12.0) < 1e-9, "box8 scores 12 minutes")
    check(len(box) == 1 and float(box.rcp_scaling_factor.iloc[0]) == 1.05 and
          abs(float(box.score_minutes_scaled.iloc[0]) - 12.6) < 1e-9,
          "box8's published score carries the scores table's RCP scaling: " + str(box.iloc[0].to_dict()))

    mi300x = run("predict", "--system", os.path.join(data, "hand_built_mi300x_8.json"), "--benchmark", "bert",
                 "--format", "json")
    check(mi300x.returncode == 0, "predict on the hand-built MI300X box: " + mi300x.stderr)
    if mi300x.returncode == 0:
        result = json.loads(mi300x.stdout)
        for key in ("benchmark", "predicted_minutes", "iteration_time_s", "throughput_samples_per_s",
                    "global_batch_size", "accelerators"):
            check(key in result, "predict JSON has " + key)
        check(result["accelerators"] == 8 and result["accelerator"] == "mi300x", str(result))
        check(result["global_batch_size"] > 0 and 0.5 < result["predicted_minutes"] < 60, str(result))
        # MI300X results (v5.0) are in the calibration, but one of BERT: the errors of families with
        # fewer than 5 results of the benchmark bound the interval.
        check(result["regime"] == "thinly_calibrated_family", "MI300X is a thinly calibrated family: " + str(result))
    b200 = run("predict", "--system", os.path.join(data, "hand_built_dgx_b200_4node.json"), "--benchmark",
               "llama2_70b_lora")
    check(b200.returncode == 0 and "predicted " in b200.stdout and "tp 4" in b200.stdout, b200.stdout + b200.stderr)

    # The same GB200 NVL72 rack described as one node of 72 and as 18 trays of 4 (as MLPerf submissions
    # count nodes): one NVLink domain either way, the same prediction.
    for benchmark in (["stable_diffusion"], ["llama2_70b_lora", "--gbs", "72"]):
        rack_minutes = []
        for name in ("hand_built_gb200_nvl72.json", "hand_built_gb200_nvl72_trays.json"):
            rack = run("predict", "--system", os.path.join(data, name), "--benchmark", *benchmark, "--format", "json")
            check(rack.returncode == 0, name + ": " + rack.stderr)
            if rack.returncode == 0:
                rack_minutes.append(json.loads(rack.stdout)["predicted_minutes"])
        check(len(rack_minutes) == 2 and abs(rack_minutes[0] - rack_minutes[1]) <= 1e-9 * rack_minutes[0],
              "one rack, two descriptions, " + benchmark[0] + ": " + str(rack_minutes))

    # The calibration rule's batch for BERT (what submitters run at that scale; predict simulates it beside
    # the convergence table's batches and keeps the fastest) grows with the machine (8, 32, 72, 512 and 2,048 GPUs): never down, a
    # multiple of the GPU count, what the calibration's results ran where they ran that many GPUs (512:
    # NVIDIA's v5.0 result, 8,192), and beyond them capped at the largest batch BERT's RCPs cover (16,384;
    # the 512-GPU results' 16 per GPU would give 32,768 at 2,048).
    batches = []
    for name in ("hand_built_dgx_b200_1node.json", "hand_built_dgx_b200_4node.json", "hand_built_gb200_nvl72.json",
                 "hand_built_dgx_b200_64node.json", "hand_built_dgx_b200_256node.json"):
        bert = run("predict", "--system", os.path.join(data, name), "--benchmark", "bert", "--format", "json")
        check(bert.returncode == 0, name + ": " + bert.stderr)
        if bert.returncode == 0:
            result = json.loads(bert.stdout)
            batches.append((result["accelerators"], result["global_batch_size_rule"], result["global_batch_size_source"]))
            check(result["global_batch_size"] % result["accelerators"] == 0 and result["global_batch_size"] <= 16384,
                  "the chosen batch is a multiple within the RCPs: " + bert.stdout)
    check([n for n, _, _ in batches] == [8, 32, 72, 512, 2048], str(batches))
    check(all(gbs % n == 0 and gbs <= 16384 for n, gbs, _ in batches), "multiples within the RCPs: " + str(batches))
    check(all(a[1] <= b[1] for a, b in zip(batches, batches[1:])), "non-decreasing: " + str(batches))
    check(batches[0][1] == 768, "8 GPUs run what the 8-GPU results ran: " + str(batches))
    check(batches[3][1] == 8192, "512 GPUs run what the 512-GPU result ran: " + str(batches))
    check(batches[-1][1] == 16384 and "capped at the largest batch the RCPs cover" in batches[-1][2], str(batches))

    # Llama 2 without logs: the layout is the fastest of those that fit, each simulated. On 80 GB H100s,
    # with the frozen weights in FP8, NVIDIA's tp 4 storing every layer and tp 2 recomputing 33 of 80
    # come out within 2 % (26.9 and 26.6 min in the model), tp 1 recomputing all of them 15 % slower:
    # the chosen minutes equal the least of the layouts --gradient-accumulation fixes.
    box8 = os.path.join(data, "systems", "v9.9", "Acme__box8.json")
    chosen = run("predict", "--system", box8, "--benchmark", "llama2_70b_lora", "--format", "json")
    check(chosen.returncode == 0, "Llama 2 on 8 H100: " + chosen.stderr)
    fixed = []
    for steps in ("2", "4", "8"):
        one = run("predict", "--system", box8, "--benchmark", "llama2_70b_lora", "--gradient-accumulation", steps,
                  "--format", "json")
        check(one.returncode == 0, "--gradient-accumulation " + steps + ": " + one.stderr)
        if one.returncode == 0:
            fixed.append(json.loads(one.stdout)["predicted_minutes"])
    if chosen.returncode == 0 and len(fixed) == 3:
        result = json.loads(chosen.stdout)
        check(result["tensor_parallel"] in (2, 4) and result["context_parallel"] == 1, str(result))
        check(result["predicted_minutes"] == min(fixed), str(result["predicted_minutes"]) + " vs " + str(fixed))
        check(max(fixed) > 1.1 * min(fixed), "the layouts differ: " + str(fixed))
        check(any(note.startswith("layout: the fastest of the layouts that fit") for note in result["notes"]),
              str(result["notes"]))

    # Parts the MLPerf data do not have (GH200, B300, GB300, RTX PRO 6000): identified from the names their
    # makers use, every benchmark predicted, the regime saying how much the calibration knows of them.
    benchmarks = ("bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion")
    expected = {"hand_built_hgx_b300_8.json": ("b300-sxm-288gb", 8, "new_family_calibrated_generation"),
                "hand_built_gb300_nvl72.json": ("gb300", 72, "new_family_calibrated_generation"),
                "hand_built_gh200_quad_4node.json": ("gh200-96gb", 16, "new_family_calibrated_generation"),
                "hand_built_rtx_pro_6000_8.json": ("rtx-pro-6000-blackwell", 8, "uncalibrated_generation")}
    minutes = {}
    for name, (accelerator, count, regime) in expected.items():
        for benchmark in benchmarks:
            new_part = run("predict", "--system", os.path.join(data, name), "--benchmark", benchmark, "--format", "json")
            check(new_part.returncode == 0, name + " " + benchmark + ": " + new_part.stderr)
            if new_part.returncode != 0:
                continue
            result = json.loads(new_part.stdout)
            minutes[(name, benchmark)] = result["predicted_minutes"]
            check(result["accelerator"] == accelerator and result["accelerators"] == count, name + ": " + str(result))
            check(result["regime"].startswith(regime), name + " " + benchmark + ": " + result["regime"])
    # What-if on memory alone: the HBM3e GH200 (144 GB at 4.9 TB/s) against the HBM3 one (96 GB at 4 TB/s),
    # same GPU, same node: more memory bandwidth and capacity is never slower, and strictly faster for a
    # benchmark whose step has memory-bound kernels (all five do).
    with open(os.path.join(data, "hand_built_gh200_quad_4node.json")) as f:
        hbm3e = json.load(f)
    hbm3e["accelerator_model_name"], hbm3e["accelerator_memory_capacity"] = "NVIDIA GH200 144GB HBM3e", "144 GB"
    hbm3e_path = os.path.join(tmp, "gh200_144gb_quad_4node.json")
    with open(hbm3e_path, "w") as f:
        json.dump(hbm3e, f)
    for benchmark in benchmarks:
        faster = run("predict", "--system", hbm3e_path, "--benchmark", benchmark, "--format", "json")
        check(faster.returncode == 0, "GH200 144 GB " + benchmark + ": " + faster.stderr)
        slower = minutes.get(("hand_built_gh200_quad_4node.json", benchmark))
        if faster.returncode == 0 and slower is not None:
            result = json.loads(faster.stdout)
            check(result["accelerator"] == "gh200-144gb", str(result))
            check(result["predicted_minutes"] < slower,
                  "GH200 144 GB " + benchmark + " " + str(result["predicted_minutes"]) + " < 96 GB " + str(slower))

    # Convergence as submitted: a calibration's convergence factor for a benchmark multiplies the samples its
    # prediction trains (and so its training and evaluation minutes), and the note says where it comes from.
    import re
    with open(os.path.join(source_dir, "calibration", "mlperf.yaml")) as f:
        committed = f.read()
    without = re.sub(r"  # Scored samples over.*?\n(?:  #.*\n)*  convergence_factors:\n(?:    - .*\n)*", "",
                     committed)
    predicted = {}
    for factor in ("1", "0.8"):
        text = without.replace("  # Prediction intervals", "  convergence_factors:\n    - {benchmark: bert, factor: " +
                               factor + ", results: 5}\n  # Prediction intervals", 1)
        path = os.path.join(tmp, "factor_" + factor + ".yaml")
        with open(path, "w") as f:
            f.write(text)
        one = run("predict", "--system", os.path.join(data, "hand_built_mi300x_8.json"), "--benchmark", "bert",
                  "--calibration", path, "--format", "json")
        check(one.returncode == 0, "predict with convergence factor " + factor + ": " + one.stderr)
        if one.returncode == 0:
            predicted[factor] = json.loads(one.stdout)
    if len(predicted) == 2:
        check("convergence_factors:" not in without, "the committed factors were cut out of the copy")
        one, scaled = predicted["1"], predicted["0.8"]
        check(abs(scaled["samples_to_converge"] / one["samples_to_converge"] - 0.8) < 1e-5,  # 6 digits in the JSON
              str(scaled["samples_to_converge"]) + " vs " + str(one["samples_to_converge"]))
        check(scaled["iteration_time_s"] == one["iteration_time_s"], "the step does not depend on convergence")
        check(0.78 < scaled["predicted_minutes"] / one["predicted_minutes"] < 0.82,
              str(scaled["predicted_minutes"]) + " vs " + str(one["predicted_minutes"]))
        check(any(n.startswith("samples to converge: the convergence table's times 0.8, the median of 5 calibration "
                               "results of the benchmark") for n in scaled["notes"]), str(scaled["notes"]))

    unknown = os.path.join(data, "invalid_unknown_accelerator.json")
    failure = run("predict", "--system", unknown, "--benchmark", "bert")
    check(failure.returncode == 2, "unknown accelerator exits 2")
    check(unknown + ":5:31: error: /accelerator_model_name: unknown accelerator 'Acme TensorBlaster 9000': no catalog "
          "entry has part number '9000' (closest catalog entries: " in failure.stderr, failure.stderr)
    failure = run("check", unknown)
    check(failure.returncode == 2 and "unknown accelerator 'Acme TensorBlaster 9000'" in failure.stderr,
          "check refuses what predict refuses: " + failure.stderr)
    malformed = os.path.join(data, "invalid_malformed.json")
    failure = run("predict", "--system", malformed, "--benchmark", "bert")
    check(failure.returncode == 2 and malformed + ":6:1: error: unexpected end of the JSON text (an object is not closed)" in failure.stderr, failure.stderr)
    failure = run("predict", "--system", os.path.join(data, "hand_built_mi300x_8.json"), "--benchmark", "bert",
                  "--gbs", "7")
    check(failure.returncode == 2 and "global batch 7 does not divide over 8 GPUs" in failure.stderr, failure.stderr)
    failure = run("predict", "--system", os.path.join(data, "hand_built_mi300x_8.json"), "--benchmark", "gpt3")
    check(failure.returncode == 2 and "unknown benchmark 'gpt3'" in failure.stderr, failure.stderr)

tally.finish()
