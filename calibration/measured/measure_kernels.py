#!/usr/bin/env python3
"""Time, on one CUDA GPU with PyTorch, the kernels gpuscale's kernel model prices, and write them in the
format `gpuscale workload kernels` reads (calibration/measured/README.md):

  * launch: the smallest kernel there is (one element), replayed from a CUDA graph and launched eagerly:
    the per-kernel cost;
  * stream: streaming kernels from 1 KiB to 1 GiB: the fixed time and the bandwidth of memory-bound kernels;
  * grid: bf16 GEMMs over a grid of shapes (and FP8 where the GPU and PyTorch have it): tile and wave
    quantisation, the sustained fraction of the dense peak;
  * trace: every distinct kernel of the five workload traces (workloads/*.yaml) at several micro-batches,
    forward and the backward kernels the model prices (input and weight gradients of GEMMs and
    convolutions, attention's backward), with how many of each one pass runs.

Each kernel is captured in a CUDA graph as `n` back-to-back launches (n chosen for about 2 ms), replayed
several times; the time per kernel is the median replay over n. The same n launches issued by the host
give the eager time. Rows are written as they are measured, so a run stopped by its time budget keeps
what it measured.

Usage (on the GPU machine, from the repository root):
  python3 calibration/measured/measure_kernels.py --out calibration/measured/h200-kernels.yaml
  python3 calibration/measured/measure_kernels.py --plan-only     # what would be timed (no GPU needed)

Nothing in gpuscale's build or tests runs this script on a GPU: its output is data.
"""

import argparse
import datetime
import math
import os
import platform
import subprocess
import sys
import time

import yaml

# Micro-batches timed per workload, in the order they are timed: first what MLPerf submissions run per
# GPU on one node (Stable Diffusion 32 latents, ResNet-50 200-400 images, BERT 48-96 sequences,
# RetinaNet 32 images, Llama 2 70B LoRA one 8,192-token sequence), then 1 (where per-kernel costs
# dominate), then the sizes between. Every workload gets its first micro-batch before any gets its
# second, so a run its budget cuts short still has both ends of each.
MICRO_BATCHES = {
    "stable-diffusion": [32, 1, 8, 2],
    "resnet50": [256, 1, 32, 128, 8],
    "bert-large": [96, 1, 32, 8],
    "llama2-70b-lora": [1],
    "retinanet": [32, 1, 16, 4],
}
# The order of the workloads within each round of micro-batches.
WORKLOAD_ORDER = ["stable-diffusion", "resnet50", "bert-large", "llama2-70b-lora", "retinanet"]

ELEMENT_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1}


# ---- the plan: which kernels, at which shapes (pure Python, no GPU) ---------------------------------------

def expand_layers(entries, out=None):
    """The trace's layers with repeat groups expanded (workloads/SCHEMA.md, "Repeated blocks")."""
    out = [] if out is None else out
    for entry in entries:
        if "repeat" in entry:
            first = entry.get("first_index", 0)
            for i in range(first, first + entry["repeat"]):
                block = []
                expand_layers(entry["layers"], block)
                for layer in block:
                    copy = dict(layer)
                    copy["name"] = str(layer["name"]).replace("{i}", str(i))
                    out.append(copy)
        else:
            out.append(entry)
    return out


def rank_shape(kernel, layer, tp, sequence_parallel):
    """One sample's kernel as one tensor-parallel rank runs it, split as the simulator splits it
    (sim/engine/ComputeCostModel.cpp, split_of): column layers divide a GEMM's n and attention's heads,
    row layers a GEMM's k, replicated layers their rows only under sequence parallelism."""
    shape = dict(kernel)
    mode = layer.get("tensor_parallel", "replicated")
    op = shape["op"]
    if tp == 1:
        return shape
    if op == "gemm":
        if mode == "column":
            shape["n"] = shape["n"] // tp
        elif mode == "row":
            shape["k"] = shape["k"] // tp
        elif sequence_parallel:
            shape["m"] = max(1, shape["m"] // tp)
    elif op == "attention" and mode == "column":
        shape["kv_heads"] = max(1, shape.get("kv_heads", shape["heads"]) // tp)
        shape["heads"] = shape["heads"] // tp
    elif op == "elementwise" and (mode != "replicated" or sequence_parallel):
        shape["elements"] = max(1, shape["elements"] // tp)
    return shape


def passes_of(kernel):
    """The passes the model prices for a kernel (sim/engine/ComputeCostModel.hpp)."""
    op, factor = kernel["op"], kernel.get("backward_factor", 0)
    passes = ["forward"]
    if op in ("gemm", "conv"):
        if factor >= 1:
            passes.append("input_gradient")
        if factor == 2:
            passes.append("weight_gradient")
    elif op == "attention" and factor >= 1:
        passes.append("backward")
    return passes


def shape_key(shape):
    return tuple(sorted((k, v) for k, v in shape.items() if k not in ("fused",)))


def plan_workload(trace, micro_batches, tp=1, sequence_parallel=False):
    """Distinct (micro-batch, shape, pass) of a trace with how many kernels of each one pass runs.
    Fused elementwise ops run inside another kernel and are not timed; elementwise backward kernels
    are not timed either (the stream sizes cover memory-bound kernels)."""
    layers = expand_layers(trace["workload"]["layers"])
    distinct = {}
    for layer in layers:
        for kernel in layer.get("kernels", []):
            if kernel["op"] == "elementwise" and kernel.get("fused", False):
                continue
            shape = rank_shape(kernel, layer, tp, sequence_parallel)
            for pass_name in passes_of(kernel):
                key = (shape_key(shape), pass_name)
                if key not in distinct:
                    distinct[key] = {"layer": layer["name"], "shape": shape, "pass": pass_name, "count": 0}
                distinct[key]["count"] += 1
    plan = []
    for micro in micro_batches:
        for item in distinct.values():
            plan.append(dict(item, micro_batch=micro))
    return plan


def workload_precision(trace, llama_fp8):
    name = trace["workload"]["name"]
    if name.startswith("llama2") and llama_fp8:
        return "fp8"
    return trace["workload"]["precision"]


def load_traces(folder):
    traces = {}
    for name in WORKLOAD_ORDER:
        path = os.path.join(folder, name + ".yaml")
        with open(path) as f:
            traces[name] = yaml.safe_load(f)
    return traces


# ---- writing rows -------------------------------------------------------------------------------------------

def flow(mapping):
    """A YAML flow mapping on one line (values are numbers, booleans or plain words)."""
    parts = []
    for key, value in mapping.items():
        if isinstance(value, dict):
            text = flow(value)
        elif isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, float):
            text = repr(value)
        elif isinstance(value, int):
            text = str(value)
        else:
            text = '"' + str(value).replace('"', "'") + '"'
        parts.append(f"{key}: {text}")
    return "{" + ", ".join(parts) + "}"


class Writer:
    def __init__(self, path, environment):
        self.file = open(path, "w")
        self.rows = 0
        self.file.write("# Kernel times measured with calibration/measured/measure_kernels.py; read them with\n")
        self.file.write("#   gpuscale workload kernels FILE --accelerator NAME (calibration/measured/README.md)\n")
        self.file.write("environment: " + flow(environment) + "\n")
        self.file.write("timings:\n")
        self.file.flush()

    def row(self, source, kernel, pass_name, precision, micro_batch, graph_s, eager_s, workload="", layer="",
            count=1):
        entry = {"source": source}
        if workload:
            entry["workload"] = workload
            entry["layer"] = layer
        entry.update({"pass": pass_name, "precision": precision, "micro_batch": micro_batch, "count": count,
                      "graph_time": f"{graph_s:.6g} s"})
        if eager_s:
            entry["eager_time"] = f"{eager_s:.6g} s"
        entry["kernel"] = kernel
        self.file.write("  - " + flow(entry) + "\n")
        self.file.flush()
        self.rows += 1


# ---- timing (PyTorch) ---------------------------------------------------------------------------------------

class Timer:
    """Times a zero-argument callable that launches one kernel on preallocated tensors."""

    def __init__(self, torch, device, target_s=2e-3, replays=5):
        self.torch = torch
        self.device = device
        self.cuda = device.startswith("cuda")
        self.target_s = target_s
        self.replays = replays

    def _sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def _eager(self, fn, n):
        torch = self.torch
        if not self.cuda:
            start = time.perf_counter()
            for _ in range(n):
                fn()
            return (time.perf_counter() - start) / n
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            fn()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) * 1e-3 / n

    def measure(self, fn):
        """(graph seconds per kernel or None, eager seconds per kernel)."""
        torch = self.torch
        fn()
        self._sync()
        one = self._eager(fn, 1)
        n = int(min(200, max(1, math.ceil(self.target_s / max(one, 1e-7)))))
        eager = sorted(self._eager(fn, n) for _ in range(3))[1]
        if not self.cuda:
            return None, eager
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(2):
                fn()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(n):
                fn()
        graph.replay()
        self._sync()
        times = []
        for _ in range(self.replays):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) * 1e-3 / n)
        del graph
        return sorted(times)[len(times) // 2], eager


class Kernels:
    """PyTorch stand-ins for the trace's kernel ops, each one launch on preallocated tensors."""

    def __init__(self, torch, device):
        self.torch = torch
        self.device = device
        self.fp8 = self._fp8_available()

    def dtype(self, precision):
        t = self.torch
        return {"fp32": t.float32, "fp16": t.float16, "bf16": t.bfloat16, "fp8": t.bfloat16}[precision]

    def runs_at(self, precision):
        """The precision a kernel asked for in `precision` runs at here: a CPU smoke test runs everything
        in fp32 (its half-precision products are missing or emulated); FP8 runs only as GEMMs."""
        if not self.device.startswith("cuda"):
            return "fp32"
        return "bf16" if precision == "fp8" else precision

    def _fp8_available(self):
        t = self.torch
        if not self.device.startswith("cuda") or not hasattr(t, "_scaled_mm") or not hasattr(t, "float8_e4m3fn"):
            return False
        try:
            a = t.zeros(16, 16, device=self.device).to(t.float8_e4m3fn)
            b = t.zeros(16, 16, device=self.device).to(t.float8_e4m3fn).t()
            one = t.ones((), device=self.device)
            t._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=t.bfloat16)
            return True
        except Exception:  # noqa: BLE001 - any failure means: no FP8 GEMM here
            return False

    def gemm_precision(self, precision, batch, dims):
        """The precision a GEMM of `dims` (m, n, k) asked for in `precision` runs at here: FP8 only through
        torch._scaled_mm, which takes single products whose dimensions are multiples of 16 (others run bf16,
        as TransformerEngine runs them)."""
        if precision == "fp8" and self.fp8 and batch == 1 and all(d % 16 == 0 for d in dims):
            return "fp8"
        return self.runs_at(precision)

    def gemm(self, m, n, k, batch, precision):
        """(m x k) by (k x n), `batch` of them, at gemm_precision()."""
        t = self.torch
        used = self.gemm_precision(precision, batch, (m, n, k))
        if used == "fp8":
            a = t.randn(m, k, device=self.device).to(t.float8_e4m3fn)
            b = t.randn(n, k, device=self.device).to(t.float8_e4m3fn).t()
            one = t.ones((), device=self.device)
            return lambda: t._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=t.bfloat16)
        dtype = self.dtype(used)
        a = t.randn(batch, m, k, device=self.device, dtype=dtype)
        b = t.randn(batch, k, n, device=self.device, dtype=dtype)
        out = t.empty(batch, m, n, device=self.device, dtype=dtype)
        return lambda: t.bmm(a, b, out=out)

    def conv(self, shape, micro, precision, pass_name):
        t = self.torch
        dtype = self.dtype(self.runs_at(precision))
        c, k, groups = shape["c"], shape["k"], shape.get("groups", 1)
        stride, pad = shape.get("stride", 1), shape.get("pad", 0)
        x = t.randn(micro, c, shape["h"], shape["w"], device=self.device, dtype=dtype).to(
            memory_format=t.channels_last)
        w = t.randn(k, c // groups, shape["r"], shape["s"], device=self.device, dtype=dtype).to(
            memory_format=t.channels_last)
        conv = t.nn.functional.conv2d
        if pass_name == "forward":
            return lambda: conv(x, w, None, stride, pad, 1, groups)
        y = conv(x, w, None, stride, pad, 1, groups)
        dy = t.randn_like(y)
        mask = [pass_name == "input_gradient", pass_name == "weight_gradient", False]
        backward = t.ops.aten.convolution_backward
        return lambda: backward(dy, x, w, [0], [stride, stride], [pad, pad], [1, 1], False, [0, 0], groups, mask)

    def attention(self, shape, micro, precision, pass_name):
        t = self.torch
        dtype = self.dtype(self.runs_at(precision))
        heads, kv_heads = shape["heads"], shape.get("kv_heads", shape["heads"])
        d = shape["head_dim"]
        q = t.randn(micro, heads, shape["q"], d, device=self.device, dtype=dtype)
        # Grouped-query attention as the model prices it: each K/V head serves heads / kv_heads query heads;
        # expanded here (outside the timed kernel) where the PyTorch kernel does not take them grouped.
        k = t.randn(micro, kv_heads, shape["kv"], d, device=self.device, dtype=dtype)
        v = t.randn(micro, kv_heads, shape["kv"], d, device=self.device, dtype=dtype)
        if kv_heads != heads:
            k = k.repeat_interleave(heads // kv_heads, dim=1)
            v = v.repeat_interleave(heads // kv_heads, dim=1)
        causal = bool(shape.get("causal", False))
        sdpa = t.nn.functional.scaled_dot_product_attention
        if pass_name == "forward":
            return lambda: sdpa(q, k, v, is_causal=causal)
        q.requires_grad_(True)
        k.requires_grad_(True)
        v.requires_grad_(True)
        out = sdpa(q, k, v, is_causal=causal)
        grad = t.randn_like(out)
        return lambda: t.autograd.grad(out, (q, k, v), grad, retain_graph=True)

    def elementwise(self, elements, bytes_per_element, precision):
        """A streaming op reading streaming_inputs() tensors and writing one, at the precision it runs at
        (an FP8 trace's activations stay bf16)."""
        t = self.torch
        dtype = self.dtype(self.runs_at(precision))
        inputs, _ = self.streaming_inputs(bytes_per_element, precision)
        x = [t.randn(elements, device=self.device, dtype=dtype) for _ in range(inputs)]
        out = t.empty(elements, device=self.device, dtype=dtype)
        if inputs == 1:
            return lambda: t.mul(x[0], 1.5, out=out)
        if inputs == 2:
            return lambda: t.add(x[0], x[1], out=out)
        return lambda: t.addcmul(x[0], x[1], x[2], out=out)

    def streaming_inputs(self, bytes_per_element, precision):
        """How many tensors the stand-in for an elementwise op moving `bytes_per_element` reads (1 to 3;
        it writes one), and the bytes per element it then moves at the precision it runs at."""
        size = ELEMENT_BYTES[self.runs_at(precision)]
        inputs = int(min(3, max(1, round(bytes_per_element / size) - 1)))
        return inputs, float((inputs + 1) * size)


# ---- the measurement run ------------------------------------------------------------------------------------

def environment_of(torch, device):
    env = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "device": device,
    }
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(0)
        env.update({"gpu": props.name, "sm_count": props.multi_processor_count,
                    "memory_gib": round(props.total_memory / 2**30, 1),
                    "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version()})
        try:
            query = "driver_version,clocks.max.sm,clocks.max.mem,power.limit"
            text = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                                  capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
            for key, value in zip(query.split(","), text.split(",")):
                env[key.replace(".", "_")] = value.strip()
        except Exception as error:  # noqa: BLE001 - the versions above still say what ran
            env["nvidia_smi"] = f"not read: {error}"
    return env


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--workloads", default=os.path.join(root, "workloads"))
    parser.add_argument("--out", default="kernel-timings.yaml")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--budget-s", type=float, default=360.0, help="stop starting new kernels after this")
    parser.add_argument("--llama-tp", type=int, default=2, help="tensor parallelism of Llama 2's kernels (8x H200: 2)")
    parser.add_argument("--no-llama-fp8", action="store_true", help="time Llama 2's GEMMs in bf16")
    parser.add_argument("--quick", action="store_true", help="micro-batch 1 and a few sizes only (smoke test)")
    parser.add_argument("--plan-only", action="store_true", help="print what would be timed and exit")
    args = parser.parse_args()

    traces = load_traces(args.workloads)
    plans = {}
    for name in WORKLOAD_ORDER:
        micro = [1] if args.quick else MICRO_BATCHES[name]
        tp = args.llama_tp if name.startswith("llama2") else 1
        plans[name] = plan_workload(traces[name], micro, tp=tp, sequence_parallel=tp > 1)
    if args.plan_only:
        for name, plan in plans.items():
            print(f"{name}: {len(plan)} kernels to time "
                  f"({sum(1 for p in plan if p['pass'] == 'forward')} forward) at micro-batches {MICRO_BATCHES[name]}")
        return 0

    import torch  # noqa: PLC0415 - only the measurement needs it
    started = time.monotonic()
    device = args.device
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            print("measure_kernels: no CUDA device (use --device cpu for a smoke test)", file=sys.stderr)
            return 2
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
    timer = Timer(torch, device)
    ops = Kernels(torch, device)
    writer = Writer(args.out, dict(environment_of(torch, device), fp8_gemm=ops.fp8))
    skipped = {}

    def over_budget():
        return time.monotonic() - started > args.budget_s

    def record(source, kernel, pass_name, precision, micro, make, **where):
        if over_budget():
            skipped[source] = skipped.get(source, 0) + 1
            return
        try:
            fn = make()
            graph_s, eager_s = timer.measure(fn)
        except Exception as error:  # noqa: BLE001 - one kernel that does not run must not lose the rest
            print(f"  skipped {source} {kernel} {pass_name} x{micro}: {type(error).__name__}: {error}"[:300],
                  file=sys.stderr)
            skipped[source] = skipped.get(source, 0) + 1
            if device.startswith("cuda"):
                try:  # a capture that failed half-way must not leave the stream capturing
                    torch.cuda.synchronize()
                except Exception:  # noqa: BLE001
                    pass
            return
        finally:
            if device.startswith("cuda"):
                torch.cuda.empty_cache()
        writer.row(source, kernel, pass_name, precision, micro, graph_s if graph_s else eager_s, eager_s, **where)

    # The smallest kernel: its time is the per-kernel cost.
    stream_precision = ops.runs_at("bf16")
    for _ in range(3):
        _, moved = ops.streaming_inputs(4.0, "bf16")
        kernel = {"op": "elementwise", "elements": 1, "flop_per_element": 1, "bytes_per_element": moved,
                  "backward_factor": 0}
        record("launch", kernel, "forward", stream_precision, 1, lambda: ops.elementwise(1, 4.0, "bf16"))

    # Streaming kernels from 512 B to 1.5 GiB moved, reading one and two tensors.
    exponents = range(8, 23, 4) if args.quick else range(8, 29)
    for exponent in exponents:
        for asked in (4.0, 6.0):
            elements = 2**exponent
            _, moved = ops.streaming_inputs(asked, "bf16")
            kernel = {"op": "elementwise", "elements": elements, "flop_per_element": 1, "bytes_per_element": moved,
                      "backward_factor": 0}
            record("stream", kernel, "forward", stream_precision, 1,
                   lambda e=elements, b=asked: ops.elementwise(e, b, "bf16"))

    # GEMMs over a grid: squares, and tall-skinny products like a transformer's at small token counts.
    sizes = [64, 256, 1024] if args.quick else [128, 256, 512, 1024, 2048, 4096, 8192, 16384]
    shapes = [(s, s, s) for s in sizes] + [(m, 4096, 4096) for m in sizes] + [(m, 8192, 28672 // 4) for m in sizes]
    for precision in (["bf16", "fp8"] if ops.fp8 else [stream_precision]):
        for m, n, k in shapes:
            kernel = {"op": "gemm", "m": m, "n": n, "k": k, "batch": 1, "backward_factor": 0}
            record("grid", kernel, "forward", ops.gemm_precision(precision, 1, (m, n, k)), 1,
                   lambda m=m, n=n, k=k, p=precision: ops.gemm(m, n, k, 1, p))

    def time_trace(name, micro):
        """Every kernel of `name`'s plan at micro-batch `micro`."""
        plan = [item for item in plans[name] if item["micro_batch"] == micro]
        print(f"measure_kernels: {writer.rows} kernels timed after {time.monotonic() - started:.0f} s; now {name} "
              f"at micro-batch {micro} ({len(plan)} kernels)", flush=True)
        precision = workload_precision(traces[name], not args.no_llama_fp8)
        for item in plan:
            shape, pass_name = item["shape"], item["pass"]
            op = shape["op"]
            if op == "gemm":
                m, n, k, batch = shape["m"] * micro, shape["n"], shape["k"], shape.get("batch", 1)
                dims = {"forward": (m, n, k), "input_gradient": (m, k, n), "weight_gradient": (n, k, m)}[pass_name]
                used = ops.gemm_precision(precision, batch, dims)
                make = lambda d=dims, b=batch, p=precision: ops.gemm(d[0], d[1], d[2], b, p)  # noqa: E731
            elif op == "conv":
                used = ops.runs_at(precision)
                make = lambda s=shape, ps=pass_name, p=precision: ops.conv(s, micro, p, ps)  # noqa: E731
            elif op == "attention":
                used = ops.runs_at(precision)
                make = lambda s=shape, ps=pass_name, p=precision: ops.attention(s, micro, p, ps)  # noqa: E731
            else:
                elements = shape["elements"] * micro
                _, moved = ops.streaming_inputs(shape["bytes_per_element"], precision)
                shape = dict(shape, bytes_per_element=moved)  # the model prices the op that ran
                used = ops.runs_at(precision)
                make = lambda e=elements, b=moved, p=precision: ops.elementwise(e, b, p)  # noqa: E731
            kernel = dict(shape)
            kernel.pop("fused", None)
            record("trace", kernel, pass_name, used, micro, make, workload=traces[name]["workload"]["name"],
                   layer=item["layer"], count=item["count"])

    # The workloads' own kernels, a round of micro-batches at a time (MICRO_BATCHES).
    rounds = max(len(batches) for batches in MICRO_BATCHES.values())
    for round_index in range(rounds):
        for name in WORKLOAD_ORDER:
            batches = sorted({item["micro_batch"] for item in plans[name]}, key=MICRO_BATCHES[name].index)
            if round_index < len(batches):
                time_trace(name, batches[round_index])

    writer.file.close()
    elapsed = time.monotonic() - started
    print(f"measure_kernels: {writer.rows} kernels timed in {elapsed:.0f} s into {args.out}"
          + (f"; not timed: {skipped}" if skipped else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
