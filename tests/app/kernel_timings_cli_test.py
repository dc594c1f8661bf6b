#!/usr/bin/python3
"""Kernel timings: the measurement script's plan covers every launched kernel of each trace exactly once
per pass (so its per-workload sums are the step's kernels), and `gpuscale workload kernels` reads the
script's output and refuses bad requests with exit 2. The timing itself needs a GPU and is not run here.
Usage: kernel_timings_cli_test.py BUILD_DIR SOURCE_DIR"""

import os
import re
import subprocess
import sys

build_dir, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "calibration", "measured"))
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
import measure_kernels  # noqa: E402
from check_tally import Tally  # noqa: E402

tally = Tally()
fixture = os.path.join(source_dir, "tests", "data", "kernel_timings", "cpu_smoke.yaml")


def matmul_flop(shape):
    """FLOPs of a kernel's products (workloads/SCHEMA.md, "Kernels"): attention's QK^T and AV without softmax."""
    op = shape["op"]
    if op == "gemm":
        return 2 * shape["m"] * shape["n"] * shape["k"] * shape.get("batch", 1)
    if op == "conv":
        stride, pad = shape.get("stride", 1), shape.get("pad", 0)
        out_h = (shape["h"] + 2 * pad - shape["r"]) // stride + 1
        out_w = (shape["w"] + 2 * pad - shape["s"]) // stride + 1
        return 2 * out_h * out_w * shape["k"] * (shape["c"] // shape.get("groups", 1)) * shape["r"] * shape["s"]
    if op == "attention":
        q, kv = shape["q"], shape["kv"]
        pairs = q * (q + 1) / 2 if shape.get("causal", False) else q * kv
        return shape["heads"] * pairs * 4 * shape["head_dim"]
    return 0


# 1. The plan of each trace: every launched forward kernel once (the trace's own count of kernels and
#    of fused ones), and the products' FLOPs those the trace states.
traces = measure_kernels.load_traces(os.path.join(source_dir, "workloads"))
for name, trace in traces.items():
    text = open(os.path.join(source_dir, "workloads", name + ".yaml")).read()
    stated = re.search(r"kernels: (\d+) forward kernels of one sample, (\d+) of them fused", text)
    kernels, fused = map(int, stated.groups())
    stated_matmul = int(re.search(r"forward \d+ FLOP \((\d+) of it matmul/conv\)", text).group(1))
    plan = measure_kernels.plan_workload(trace, [1, 4])
    for micro in (1, 4):
        forward = [p for p in plan if p["pass"] == "forward" and p["micro_batch"] == micro]
        tally.check(sum(p["count"] for p in forward) == kernels - fused,
                    f"{name}: the plan at micro-batch {micro} times {sum(p['count'] for p in forward)} forward "
                    f"kernel launches, the trace states {kernels} of which {fused} fused")
        flop = sum(p["count"] * matmul_flop(p["shape"]) for p in forward)
        tally.check(abs(flop - stated_matmul) <= 1e-9 * stated_matmul,
                    f"{name}: the plan's products do {flop:.6g} FLOP per sample, the trace states {stated_matmul}")
    # Every GEMM and convolution with backward_factor 2 has its two backward products in the plan.
    for p in plan:
        if p["shape"]["op"] in ("gemm", "conv") and p["pass"] == "forward" and p["shape"]["backward_factor"] == 2:
            passes = {q["pass"] for q in plan if q["shape"] == p["shape"] and q["micro_batch"] == p["micro_batch"]}
            tally.check({"input_gradient", "weight_gradient"} <= passes, f"{name}: {p['layer']} lacks a backward pass")
            break

# Tensor parallelism: a rank's share of each product; the launches stay as many.
llama = measure_kernels.plan_workload(traces["llama2-70b-lora"], [1], tp=2, sequence_parallel=True)
whole = measure_kernels.plan_workload(traces["llama2-70b-lora"], [1])
ranks_flop = sum(p["count"] * matmul_flop(p["shape"]) for p in llama if p["pass"] == "forward")
whole_flop = sum(p["count"] * matmul_flop(p["shape"]) for p in whole if p["pass"] == "forward")
tally.check(abs(ranks_flop - whole_flop / 2) <= 1e-9 * whole_flop,
            f"llama2 at tp 2: a rank's products do {ranks_flop:.6g} FLOP, half the whole is {whole_flop / 2:.6g}")
tally.check(sum(p["count"] for p in llama if p["pass"] == "forward") ==
            sum(p["count"] for p in whole if p["pass"] == "forward"), "llama2 at tp 2: as many launches as at tp 1")

# 2. --plan-only needs neither a GPU nor PyTorch.
result = subprocess.run([sys.executable, os.path.join(source_dir, "calibration", "measured", "measure_kernels.py"),
                         "--plan-only"], capture_output=True, text=True, timeout=120)
tally.check(result.returncode == 0 and result.stdout.count("kernels to time") == 5,
            f"measure_kernels.py --plan-only: exit {result.returncode}, {result.stdout!r} {result.stderr[-300:]!r}")

# 3. gpuscale workload kernels on the script's output.
result = subprocess.run([gpuscale, "workload", "kernels", fixture, "--accelerator", "h200-sxm-141gb", "--list"],
                        capture_output=True, text=True, timeout=120)
tally.check(result.returncode == 0, f"workload kernels: exit {result.returncode}: {result.stderr[-500:]}")
for expected in ("21 kernels", "device: cpu", "by op and pass", "memory-bound kernels (", "smallest kernel",
                 "stable-diffusion     micro-batch    1", "attention    backward",
                 "smallest kernel launched by the host"):
    tally.check(expected in result.stdout, f"workload kernels: no {expected!r} in\n{result.stdout}")
for args, message in (
        (["--accelerator", "h999"], "unknown accelerator 'h999'"),
        (["--accelerator", "h200-sxm-141gb", "--benchmark", "gpt3"], "unknown benchmark 'gpt3'"),
):
    result = subprocess.run([gpuscale, "workload", "kernels", fixture] + args, capture_output=True, text=True,
                            timeout=120)
    tally.check(result.returncode == 2 and message in result.stderr and result.stdout == "",
                f"workload kernels {args}: exit {result.returncode}, stderr {result.stderr!r}")

tally.finish()
