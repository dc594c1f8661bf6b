#!/usr/bin/python3
"""Property: every row of a sweep is exactly the row `gpuscale run` writes for the same scenario alone.

Sweeps are generated (fixed seeds) over platforms (one node, a 2:1 fat tree of 128 nodes, PCIe
nodes), workloads, GPU counts, ZeRO stages, tp, batch sizes, collectives and activation checkpointing,
with the swept keys written in random order, and one sweep over pipeline stages. Each point's scenario is written here as its own file,
from the point number and the documented numbering (docs/SWEEPS.md), not from the sweep's own text,
and run alone; the two rows must agree in every column but the run and sweep identifiers.
Usage: sweep_equals_run_test.py BUILD_DIR SOURCE_DIR"""

import os
import random
import subprocess
import sys
import tempfile

import h5py

build_dir, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check

platforms = [os.path.join(source_dir, "platforms", name) for name in
             ("dgx-h100-1node.yaml", "dgx-h100-128node-fattree-2to1.yaml", "l40s-pcie-2node.yaml")]
workloads = [os.path.join(source_dir, "workloads", name) for name in ("bert-large.yaml", "resnet50.yaml")]
POOL = {
    "platform": platforms,
    "workload": workloads,
    "gpus": [1, 8, 16, 64],
    "zero_stage": [0, 1, 2, 3],
    "tp": [1, 2],
    "global_batch_size": [256, 512],
    "micro_batch_size": [4, 8],
    "collective": ["auto", "ring", "hierarchical_flow"],
    "activation_checkpointing": [False, True],
}
BASE = {"platform": platforms[1], "workload": workloads[0], "gpus": 16, "global_batch_size": 512,
        "micro_batch_size": 8}
# The numbering of docs/SWEEPS.md: platform, workload, other keys as written, then these, gpus fastest.
LEADING = ["platform", "workload"]
TRAILING = ["zero_stage", "collective", "global_batch_size", "micro_batch_size", "gpus"]
IGNORED = {"run_id", "sweep_id", "sweep_point"}


def yaml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def numbering(keys):
    others = [k for k in keys if k not in LEADING and k not in TRAILING]
    return [k for k in LEADING if k in keys] + others + [k for k in TRAILING if k in keys]


def point_values(axes, order, index):
    values = {}
    for key in reversed(order):
        items = axes[key]
        values[key] = items[index % len(items)]
        index //= len(items)
    return values


def rows(path):
    with h5py.File(path, "r") as f:
        table = f["runs"][()]
    return table


def comparable(row, names):
    return {n: row[n] for n in names if n not in IGNORED}


with tempfile.TemporaryDirectory() as tmp:
    compared = 0
    for seed in range(5):
        rng = random.Random(seed)
        keys = rng.sample(sorted(POOL), 4)
        if seed == 0:  # the case that was wrong: one platform pair, GPU counts from one node to many
            keys = ["gpus", "zero_stage", "workload", "tp"]
        if seed == 4:  # pipeline stages across nodes, with tensor parallelism and ZeRO-0/1
            keys = ["pp", "gpus", "zero_stage", "tp"]
        axes = {k: rng.sample(POOL[k], 2) if k in POOL else [1, 2] for k in keys}
        if seed == 0:
            axes["gpus"] = [8, 64]
        if seed == 4:
            axes.update({"gpus": [16, 64], "zero_stage": [0, 1]})
        sweep = os.path.join(tmp, "sweep%d.yaml" % seed)
        with open(sweep, "w") as f:
            f.write("scenario:\n  name: property\n")
            for key, value in BASE.items():
                if key not in axes:
                    f.write("  %s: %s\n" % (key, yaml_value(value)))
            f.write("sweep:\n")
            for key in keys:
                f.write("  %s: [%s]\n" % (key, ", ".join(yaml_value(v) for v in axes[key])))
            f.write("  skip_invalid: true\n")
        output = os.path.join(tmp, "sweep%d.h5" % seed)
        swept = subprocess.run([gpuscale, "sweep", sweep, "-o", output, "-j", "2"], capture_output=True, text=True)
        check(swept.returncode == 0, "sweep %d runs: %s" % (seed, swept.stderr[-2000:]))
        if swept.returncode != 0:
            continue
        table = rows(output)
        names = table.dtype.names
        order = numbering(keys)
        for row in table:
            values = dict(BASE)
            values.update(point_values(axes, order, int(row["sweep_point"])))
            single = os.path.join(tmp, "point%d_%d.yaml" % (seed, int(row["sweep_point"])))
            with open(single, "w") as f:
                f.write("scenario:\n  name: property\n")
                for key, value in values.items():
                    f.write("  %s: %s\n" % (key, yaml_value(value)))
            alone = os.path.join(tmp, "alone%d_%d.h5" % (seed, int(row["sweep_point"])))
            ran = subprocess.run([gpuscale, "run", single, "-o", alone], capture_output=True, text=True)
            check(ran.returncode == 0, "point %d of sweep %d runs alone: %s" % (int(row["sweep_point"]), seed, ran.stderr))
            if ran.returncode != 0:
                continue
            expected = comparable(rows(alone)[0], names)
            got = comparable(row, names)
            differing = [n for n in expected if not (expected[n] == got[n] or (expected[n] != expected[n] and got[n] != got[n]))]
            check(not differing, "sweep %d point %d (%s) equals its run alone; differs in %s" %
                  (seed, int(row["sweep_point"]), values,
                   ", ".join("%s: sweep %r, alone %r" % (n, got[n], expected[n]) for n in differing)))
            compared += 1
    check(compared >= 30, "compared %d sweep rows with their runs alone (want at least 30)" % compared)
    print("compared %d sweep rows with their runs alone" % compared)

sys.exit(tally.finish())
