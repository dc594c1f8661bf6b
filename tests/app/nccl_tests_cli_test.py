#!/usr/bin/python3
"""gpuscale nccl-tests as a user meets it: the nccl-tests table (columns, one row per size, busbw =
algbw x nccl-tests' factor), JSON that agrees with the text, and bad input refused with exit 2 and a
message naming the option. Usage: nccl_tests_cli_test.py BUILD_DIR SOURCE_DIR"""

import json
import os
import subprocess
import sys
import tempfile

build_dir, source_dir = sys.argv[1], os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check
dgx_h100 = os.path.join(source_dir, "platforms", "dgx-h100-1node.yaml")
rail_4node = os.path.join(source_dir, "platforms", "dgx-h100-4node-rail.yaml")

# nccl-tests doc/PERFORMANCE.md
BUS_FACTOR = {"all_reduce": lambda n: 2.0 * (n - 1) / n, "reduce_scatter": lambda n: (n - 1.0) / n,
              "all_gather": lambda n: (n - 1.0) / n, "alltoall": lambda n: (n - 1.0) / n, "broadcast": lambda n: 1.0}
REDOP_ROOT = {"all_reduce": ("sum", -1), "reduce_scatter": ("sum", -1), "all_gather": ("none", -1),
              "alltoall": ("none", -1), "broadcast": ("none", 0)}


def run(*args):
    return subprocess.run([gpuscale, *args], capture_output=True, text=True)


def data_rows(text):
    return [line.split() for line in text.splitlines() if line and not line.startswith("#")]


def printed_close(printed, value, decimals):
    return abs(float(printed) - value) <= 0.5 * 10 ** -decimals + 1e-9 * abs(value)


def time_decimals(time_us):
    return 0 if time_us >= 10000 else 1 if time_us >= 100 else 2


for op, platform, gpus in (("all_reduce", dgx_h100, 8), ("reduce_scatter", dgx_h100, 8), ("all_gather", dgx_h100, 8),
                           ("broadcast", dgx_h100, 8), ("alltoall", dgx_h100, 8), ("all_reduce", rail_4node, 16),
                           ("all_gather", rail_4node, 32)):
    what = "%s on %d GPUs of %s" % (op, gpus, os.path.basename(platform))
    text_run = run("nccl-tests", platform, "--op", op, "--gpus", str(gpus), "-b", "8", "-e", "1M", "-f", "2")
    json_run = run("nccl-tests", platform, "--op", op, "--gpus", str(gpus), "-b", "8", "-e", "1M", "-f", "2",
                   "--format", "json")
    check(text_run.returncode == 0 and json_run.returncode == 0, what + ": " + text_run.stderr + json_run.stderr)
    text = text_run.stdout
    lines = text.splitlines()
    check("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong"
          in lines, what + ": nccl-tests' column header")
    check("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "
          in lines, what + ": nccl-tests' units line")
    check(any(line.startswith("# nThread 1 nGpus %d minBytes 8 maxBytes 1048576 step: 2(factor)" % gpus) for line in lines),
          what + ": the nThread/nGpus line")
    check(sum(1 for line in lines if line.startswith("#  Rank ")) == gpus, what + ": one device line per rank")
    check(any(line.startswith("# in-place columns repeat the out-of-place ones") for line in lines),
          what + ": says that in-place equals out-of-place")
    rows = data_rows(text)
    check(len(rows) == 18, what + ": 18 rows for 8 B to 1 MiB by 2, got %d" % len(rows))
    check(all(len(row) == 13 for row in rows), what + ": 13 columns per row")
    redop, root = REDOP_ROOT[op]
    factor = BUS_FACTOR[op](gpus)
    document = json.loads(json_run.stdout)
    check(document["op"] == op and document["gpus"] == gpus and len(document["rows"]) == len(rows),
          what + ": JSON has the setup and as many rows")
    requested = 8
    for row, entry in zip(rows, document["rows"]):
        size, count = int(row[0]), int(row[1])
        per_rank = op in ("reduce_scatter", "all_gather", "alltoall")
        expected_count = (requested // 4) // gpus if per_rank else requested // 4
        check(count == expected_count and size == expected_count * 4 * (gpus if per_rank else 1),
              what + ": size %d count %d rounded as nccl-tests rounds %d B" % (size, count, requested))
        check(row[2:5] == ["float", redop, str(root)], what + ": type, redop, root " + " ".join(row[2:5]))
        check(row[5:9] == row[9:13], what + ": in-place columns equal the out-of-place ones")
        check(row[8] == "N/A", what + ": #wrong is N/A")
        # JSON agrees with the text to the printed precision, and carries the same fields.
        check(entry["size_bytes"] == size and entry["count"] == count and entry["type"] == "float"
              and entry["redop"] == redop and entry["root"] == root, what + ": JSON row fields " + str(entry))
        check(printed_close(row[5], entry["time_us"], time_decimals(entry["time_us"])), what + ": time %s vs %r" % (row[5], entry["time_us"]))
        check(printed_close(row[6], entry["algbw_GBps"], 2) and printed_close(row[7], entry["busbw_GBps"], 2),
              what + ": bandwidths %s %s vs %r" % (row[6], row[7], entry))
        # algbw = size / time, busbw = algbw x factor (full precision in JSON, printed in the text).
        if entry["time_us"] > 0:
            check(abs(entry["algbw_GBps"] - size / (entry["time_us"] * 1e-6) / 1e9) <= 1e-9 * entry["algbw_GBps"],
                  what + ": algbw = size / time")
        check(abs(entry["busbw_GBps"] - entry["algbw_GBps"] * factor) <= 1e-12 + 1e-9 * entry["busbw_GBps"],
              what + ": busbw = algbw x %g" % factor)
        check(printed_close(row[7], float(row[6]) * factor, 2) or abs(float(row[7]) - float(row[6]) * factor) <= 0.01 * factor + 0.005,
              what + ": printed busbw = printed algbw x factor")
        requested *= 2
    average = [line for line in lines if line.startswith("# Avg bus bandwidth    : ")]
    check(len(average) == 1 and abs(float(average[0].split(":")[1]) - document["avg_busbw_GBps"]) <= 1e-3 * max(1.0, document["avg_busbw_GBps"]),
          what + ": the average bus bandwidth line agrees with JSON")

# A single-node all-reduce shows what runs use: the calibrated NVSwitch efficiency, NVLS under auto.
auto = run("nccl-tests", dgx_h100, "--op", "all_reduce", "--gpus", "8", "-b", "1G", "-e", "1G", "--format", "json")
check(auto.returncode == 0, auto.stderr)
if auto.returncode == 0:
    document = json.loads(auto.stdout)
    check(document["rows"][0]["algorithm"] == "nvls", "auto all-reduce in one DGX H100 runs NVLS: " + str(document["rows"][0]))
    check("nvswitch 0.8222" in document["links"] and "nvls 0.6875" in document["links"], document["links"])
    # NCCL's NVLS on 8 H100 (shared/references/COLLECTIVES.md): busbw ~480 GB/s, algbw ~275.
    row = document["rows"][0]
    check(abs(row["busbw_GBps"] / 480.0 - 1) < 0.10, "NVLS busbw %s GB/s, reference ~480" % row["busbw_GBps"])

# --catalog: a platform of accelerators only the user's catalog defines.
catalog = os.path.join(source_dir, "tests", "data", "catalog")
acme = os.path.join(catalog, "acme-x1-1node.yaml")
with_catalog = run("nccl-tests", "--catalog", os.path.join(catalog, "user_catalog.yaml"), acme, "--op", "all_reduce",
                   "--gpus", "8", "-b", "1M", "-e", "1M")
check(with_catalog.returncode == 0 and "] Acme X1 96GB" in with_catalog.stdout, "--catalog: " + with_catalog.stderr)
without = run("nccl-tests", acme, "--op", "all_reduce", "--gpus", "8")
check(without.returncode == 2 and "unknown node type 'acme-x1-8'" in without.stderr, "without --catalog: " + without.stderr)

with tempfile.TemporaryDirectory() as tmp:
    bad_platform = os.path.join(tmp, "bad.yaml")
    with open(bad_platform, "w") as f:
        f.write("imports: [%s, %s]\ncluster:\n  name: bad\n  node_groups:\n    - node_type: dgx-h100\n      count: 1\n"
                "  fabric:\n    topology: single_switch\n    switch_latency: \"0.5 us\"\n  colour: blue\n"
                % (os.path.join(source_dir, "platforms", "catalog", "accelerators.yaml"),
                   os.path.join(source_dir, "platforms", "catalog", "node_types.yaml")))
    for args, message in (
            (("--op", "allreduce", "--gpus", "8"),
             "gpuscale: error: --op: unknown collective 'allreduce' (known: all_reduce, reduce_scatter, all_gather, broadcast, alltoall)"),
            (("--op", "all_reduce", "--gpus", "8", "-b", "8X"),
             "gpuscale: error: -b: expected a size in bytes, an integer with an optional K, M or G suffix (powers of 1024) "
             "as nccl-tests takes it, got '8X'"),
            (("--op", "all_reduce", "--gpus", "8", "-b", "1M", "-e", "64K"),
             "gpuscale: error: -e: the largest size (65536 B) is below the smallest, -b (1048576 B)"),
            (("--op", "all_reduce", "--gpus", "8", "-f", "1"),
             "gpuscale: error: -f: the step factor multiplies each size into the next: an integer of at least 2, got 1"),
            (("--op", "all_reduce", "--gpus", "0"),
             "gpuscale: error: --gpus: 0 GPUs asked, %s has 8 (at least 1)" % dgx_h100),
            (("--op", "all_reduce", "--gpus", "9"),
             "gpuscale: error: --gpus: 9 GPUs asked, %s has 8 (at least 1)" % dgx_h100),
            (("--op", "alltoall", "--gpus", "9"),
             "gpuscale: error: --gpus: 9 GPUs asked, %s has 8 (at least 1)" % dgx_h100),
            (("--op", "all_reduce", "--gpus", "8", "--collective", "rings"),
             "gpuscale: error: --collective: unknown collective algorithm 'rings' (known: ring, ring_flow, hierarchical, "
             "hierarchical_flow, halving_doubling, auto)"),
            (("--op", "broadcast", "--gpus", "8", "--collective", "halving_doubling"),
             "gpuscale: error: --collective: broadcast runs a pipelined ring (auto, ring or ring_flow: the same model), "
             "not halving_doubling")):
        failed = run("nccl-tests", dgx_h100, *args)
        check(failed.returncode == 2, "%s exits 2, got %d" % (" ".join(args), failed.returncode))
        check(failed.stderr.strip() == message, "%s: expected\n  %s\ngot\n  %s" % (" ".join(args), message, failed.stderr.strip()))
        check(failed.stdout == "", "%s prints no table" % " ".join(args))
    failed = run("nccl-tests", bad_platform, "--op", "all_reduce", "--gpus", "8")
    check(failed.returncode == 2, "a bad platform file exits 2, got %d" % failed.returncode)
    check(bad_platform + ":10:3: error: /cluster/colour: unknown key 'colour' (known keys: description, fabric, name, node_groups)" in failed.stderr, failed.stderr)
    check(failed.stdout == "", "a bad platform file prints no table")

tally.finish()
