#!/usr/bin/python3
"""A results file written by `gpuscale run` opens with h5py and pandas.read_hdf (Debian's python3-h5py,
python3-pandas, python3-tables), with the documented columns and attributes.
Usage: python_readers_test.py BUILD_DIR SOURCE_DIR"""

import hashlib
import os
import subprocess
import sys
import tempfile

import h5py
import pandas as pd

build_dir, source_dir = sys.argv[1], sys.argv[2]
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "results.h5")
    for _ in range(2):
        subprocess.run([os.path.join(build_dir, "gpuscale"), "run", os.path.join(source_dir, "scenarios", "default.yaml"),
                        "-o", path], check=True, stdout=subprocess.DEVNULL)
    frame = pd.read_hdf(path, "runs")
    assert len(frame) == 2, frame
    assert list(frame["run_id"]) == [1, 2], frame["run_id"]
    for column in ("iter_time_s", "samples_per_s", "compute_time_s", "comm_time_s", "exposed_comm_s", "mem_per_gpu_bytes"):
        assert (frame[column] > 0).all() or column == "exposed_comm_s", column
    assert frame["iter_time_s"].iloc[0] == frame["iter_time_s"].iloc[1], "same inputs, same result"
    parts = frame["ttt_training_min"] + frame["ttt_evaluation_min"] + frame["ttt_overhead_min"]
    assert (frame["time_to_train_min"] > 0).all() and (abs(parts - frame["time_to_train_min"]) < 1e-9).all(), frame
    assert (frame["samples_to_converge"] > 1e6).all()
    # default.yaml's batch lies inside its table's reference points: a point interval, not extrapolated.
    assert (frame["convergence_extrapolated"] == 0).all(), frame["convergence_extrapolated"]
    value = frame["samples_to_converge"]
    assert ((frame["samples_to_converge_low"] == value) & (frame["samples_to_converge_high"] == value)).all()
    # The 80 % intervals of the step and the time to train hold the simulated values (docs/UNCERTAINTY.md).
    for column, low, high in (("iter_time_s", "iter_time_low_s", "iter_time_high_s"),
                              ("time_to_train_min", "time_to_train_low_min", "time_to_train_high_min")):
        assert ((frame[low] < frame[column]) & (frame[column] < frame[high])).all(), (low, high)
    assert (frame["interval_regime"] != "").all(), frame["interval_regime"]
    # Every efficiency the run used is recorded (default.yaml has none: the embedded calibration's).
    for column in ("compute_efficiency", "scale_up_link_fraction", "memory_efficiency"):
        assert ((frame[column] > 0) & (frame[column] <= 3)).all(), column
    overhead = frame["step_overhead_s"]
    assert ((overhead >= 0) & (overhead < frame["iter_time_s"])).all(), overhead
    # What ran, by content and version, and the layout knobs (default.yaml: no tp/cp, uniform batch).
    with open(os.path.join(source_dir, "platforms", "dgx-a100-1node.yaml"), "rb") as platform:
        assert frame["platform_sha256"].iloc[0] == hashlib.sha256(platform.read()).hexdigest(), frame["platform_sha256"]
    assert frame["workload_sha256"].str.fullmatch("[0-9a-f]{64}").all(), frame["workload_sha256"]
    with open(os.path.join(source_dir, "workloads", "convergence", "resnet.yaml"), "rb") as table:
        assert frame["convergence_sha256"].iloc[0] == hashlib.sha256(table.read()).hexdigest(), frame["convergence_sha256"]
    assert frame["gpuscale_version"].str.match(r"\d+\.\d+\.\d+").all(), frame["gpuscale_version"]
    assert list(frame["tp"]) == [1, 1] and list(frame["cp"]) == [1, 1] and list(frame["sequence_parallel"]) == [0, 0]
    assert list(frame["cuda_graph"]) == [0, 0], frame["cuda_graph"]
    assert (frame["bucket_bytes"] > 0).all() and (frame["zero3_prefetch_params"] > 0).all()
    assert (frame["batch_per_rank"] == "").all()
    with h5py.File(path, "r") as f:
        runs = f["runs"]
        assert int(runs.attrs["schema_version"]) == 10
        assert runs["gpuscale_version"][0].decode() == frame["gpuscale_version"].iloc[0]
        assert runs.attrs["gpuscale_version"]
        text = f["scenarios/run_1"][()]
        text = text.decode() if isinstance(text, bytes) else text
        assert "scenario:" in text
        config = f["scenarios/run_1"].attrs["simgrid_config"]
        config = config.decode() if isinstance(config, bytes) else config
        assert "network/model:CM02" in config and "network/crosstraffic:0" in config, config
        outcome = runs["outcome"][0]
        assert outcome in (b"ok", "ok"), outcome
    # A Llama scenario with tensor and sequence parallelism records its layout.
    llama = os.path.join(tmp, "llama.h5")
    subprocess.run([os.path.join(build_dir, "gpuscale"), "run",
                    os.path.join(source_dir, "scenarios", "mlperf", "llama2-70b-lora-dgx-h100-8gpu.yaml"), "-o", llama],
                   check=True, stdout=subprocess.DEVNULL)
    row = pd.read_hdf(llama, "runs").iloc[0]
    assert (row["tp"], row["cp"], row["sequence_parallel"], row["precision"]) == (4, 1, 1, "fp8"), row
    assert row["cuda_graph"] == 1, row  # scenarios/mlperf/ run as CUDA graphs
print("3 passed, 0 failed")
