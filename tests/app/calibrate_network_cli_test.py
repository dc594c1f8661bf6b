#!/usr/bin/python3
"""gpuscale calibrate-network as a user meets it:
  - a round trip that cannot pass by accident: nccl-tests logs printed by `gpuscale nccl-tests` with
    known link fractions and collective costs (all five unlike the committed ones) are fitted from the
    committed values, and the fit recovers the known values within a few percent;
  - the hand-written fixture logs fit without error, into a file that `gpuscale check` accepts, that a
    scenario's `network_calibration:` and a sweep over it apply, and that nccl-tests --network-calibration reads;
  - bad input refused with exit 2, the full located message, and no file written.
Usage: calibrate_network_cli_test.py BUILD_DIR SOURCE_DIR"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

import pandas as pd
import yaml

build_dir, source_dir = sys.argv[1], os.path.abspath(sys.argv[2])
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check
rail_4node = os.path.join(source_dir, "platforms", "dgx-h100-4node-rail.yaml")
dgx_h100 = os.path.join(source_dir, "platforms", "dgx-h100-1node.yaml")
dgx_a100 = os.path.join(source_dir, "platforms", "dgx-a100-1node.yaml")
fixtures = os.path.join(source_dir, "tests", "data", "nccl-tests")
resnet = os.path.join(source_dir, "workloads", "resnet50.yaml")

# Known links, each unlike the committed calibration's (nvswitch 0.822, nvls 0.6875, nic 0.905,
# fixed 5 us, simple_step 2 us), so that a fit that does not move cannot pass.
KNOWN = {"network.nvswitch@hopper": 0.70, "network.nvls@hopper": 0.60, "network.nic": 0.80,
         "collective.fixed": 7e-6, "collective.simple_step": 3e-6}
KNOWN_FILE = """calibration:
  network:
    nvswitch: {value: 0.7}
    nvls: {value: 0.6}
    nic: {value: 0.8}
  collective:
    fixed: {value: "7 us"}
    simple_step: {value: "3 us"}
"""


def run(*args):
    return subprocess.run([gpuscale, *args], capture_output=True, text=True)


def fitted_values(path):
    """{"network.nic": 0.8, "collective.fixed": 7e-6, ...} of a network calibration file."""
    with open(path) as f:
        document = yaml.safe_load(f)["calibration"]
    values = {}
    for group in ("network", "collective"):
        for key, entry in document.get(group, {}).items():
            value = entry["value"]
            values[group + "." + key] = float(value.split()[0]) if isinstance(value, str) else float(value)
    return values, document


with tempfile.TemporaryDirectory() as tmp:
    # (a) Round trip: 1-node all-reduce (NVLS from 1 MiB under auto) and all-gather (rings over
    # NVSwitch) on 8 GPUs, a 2-node all-reduce (hierarchical over the NICs) on 16, a few sizes each.
    known = os.path.join(tmp, "known.yaml")
    with open(known, "w") as f:
        f.write(KNOWN_FILE)
    logs = []
    for op, gpus in (("all_reduce", 8), ("all_gather", 8), ("all_reduce", 16)):
        printed = run("nccl-tests", rail_4node, "--op", op, "--gpus", str(gpus), "-b", "8", "-e", "1G", "-f", "8",
                      "--network-calibration", known)
        check(printed.returncode == 0, "nccl-tests %s on %d GPUs: %s" % (op, gpus, printed.stderr))
        check("nvswitch 0.7, nvls 0.6, nic 0.8 of line rate; fixed 7 us, Simple step 3 us" in printed.stdout,
              "nccl-tests --network-calibration runs the known links: " + printed.stdout.splitlines()[1])
        logs.append(os.path.join(tmp, "%s_%d.txt" % (op, gpus)))
        with open(logs[-1], "w") as f:
            f.write(printed.stdout)
    output = os.path.join(tmp, "round_trip.yaml")
    started = time.monotonic()
    fit = run("calibrate-network", "--platform", rail_4node, "--nccl-tests", *logs, "-o", output)
    wall_s = time.monotonic() - started
    check(fit.returncode == 0, "round trip: " + fit.stderr)
    print("round trip fit: %.1f s" % wall_s)
    print(fit.stdout)
    if fit.returncode == 0:
        values, document = fitted_values(output)
        check(sorted(values) == sorted(KNOWN), "round trip writes the five parameters the logs inform: %s" % sorted(values))
        for name, expected in KNOWN.items():
            got = values.get(name, float("nan"))
            check(abs(got / expected - 1) < 0.02, "round trip recovers %s = %g within 2 %%, got %g" % (name, expected, got))
        for group in ("network", "collective"):
            for key, entry in document[group].items():
                check(entry["identified"] is True and entry["results"] > 0 and entry["standard_error"] is not None,
                      "round trip: %s.%s identified, with rows and a 1-sigma: %s" % (group, key, entry))
        summary = document["network_fit"]
        # 8 B - 1 GiB by 8 is 10 sizes; the all-gather's 8 B rounds to 0 elements per rank (size 0, not fitted).
        check(summary["rows"] == 10 + 9 + 10 and [log["rows"] for log in summary["logs"]] == [10, 9, 10],
              "network_fit: 29 rows, 10 + 9 + 10: %s" % summary)
        check(summary["rms_log_error"] < 0.002, "round trip rms log error %s (printed times: 4 digits)" % summary["rms_log_error"])
        check(set(document) == {"command", "data", "network_fit", "network", "collective"},
              "a network calibration has only command, data, network_fit, network and collective: %s" % sorted(document))
        check("fit        rms log error" in fit.stdout and "(at the start 0." in fit.stdout, "the fit line: " + fit.stdout)

    # One node only: the NICs are crossed by no row, so nic is neither fitted nor written.
    one_node = os.path.join(tmp, "one_node.yaml")
    fit = run("calibrate-network", "--platform", rail_4node, "--nccl-tests", logs[0], logs[1], "-o", one_node)
    check(fit.returncode == 0, "1-node logs: " + fit.stderr)
    if fit.returncode == 0:
        values, _ = fitted_values(one_node)
        check("network.nic" not in values and "network.nvswitch@hopper" in values, "1-node logs write no nic: %s" % values)
        check(any(line.split()[0] == "network.nic" and line.endswith("not fitted and not written: no row of these logs "
                                                                     "depends on it") for line in fit.stdout.splitlines() if line),
              "1-node logs: says nic is not fitted: " + fit.stdout)

    # A log run with NCCL_ALGO=Ring is fitted with --collective ring: its all-reduce never runs NVLS,
    # so nvls is not written, and NVSwitch comes back as it was.
    ring_log = os.path.join(tmp, "ring.txt")
    printed = run("nccl-tests", rail_4node, "--op", "all_reduce", "--gpus", "8", "-b", "8", "-e", "1G", "-f", "8",
                  "--collective", "ring", "--network-calibration", known)
    with open(ring_log, "w") as f:
        f.write(printed.stdout)
    ring_fit = os.path.join(tmp, "ring.yaml")
    fit = run("calibrate-network", "--platform", rail_4node, "--nccl-tests", ring_log, "--collective", "ring", "-o", ring_fit)
    check(fit.returncode == 0, "--collective ring: " + fit.stderr)
    if fit.returncode == 0:
        values, document = fitted_values(ring_fit)
        check("network.nvls@hopper" not in values and abs(values["network.nvswitch@hopper"] / 0.7 - 1) < 0.02,
              "--collective ring recovers NVSwitch and writes no nvls: %s" % values)
        check(document["command"].endswith(" --collective ring"), "the command is recorded: " + document["command"])

    # Times twice as fast as the known links give: NVSwitch would have to run above its line rate, so
    # the fit stops at the bound, says it is not identified, and warns that the model is wrong there.
    fast = os.path.join(tmp, "fast.txt")
    with open(logs[1]) as f:
        lines = f.read().splitlines(True)
    with open(fast, "w") as f:
        for line in lines:
            words = line.split()
            if len(words) == 13 and words[0].isdigit():
                line = line.replace(" %s " % words[5], " %.2f " % (float(words[5]) / 2), 1)
            f.write(line)
    fast_fit = os.path.join(tmp, "fast.yaml")
    fit = run("calibrate-network", "--platform", rail_4node, "--nccl-tests", fast, "-o", fast_fit)
    check(fit.returncode == 0, "too-fast log: " + fit.stderr)
    if fit.returncode == 0:
        _, document = fitted_values(fast_fit)
        nvswitch = document["network"]["nvswitch@hopper"]
        check(nvswitch["value"] == 1 and nvswitch["identified"] is False and nvswitch["note"] == "at its bound",
              "too-fast log: nvswitch held at 1, not identified: %s" % nvswitch)
        check("gpuscale: warning: network.nvswitch@hopper fitted at its bound (1.0000): the logs want it beyond the "
              "physical range, so the model is wrong for these collectives there (an algorithm, protocol or cost it "
              "lacks); the value is not a measurement" in fit.stderr.splitlines(), "too-fast log warns: " + fit.stderr)

    # (b) The fixtures (hand-written, not measurements): they fit, and the file is usable everywhere.
    fixture_fit = os.path.join(tmp, "fixtures.yaml")
    fit = run("calibrate-network", "--platform", rail_4node, "--nccl-tests",
              os.path.join(fixtures, "all_reduce_1node_8xh100.txt"), os.path.join(fixtures, "all_reduce_2node_16xh100.txt"),
              "all_gather=" + os.path.join(fixtures, "all_gather_1node_8xh100.txt"), "-o", fixture_fit)
    check(fit.returncode == 0, "fixtures fit: " + fit.stderr)
    checked = run("check", fixture_fit)
    check(checked.returncode == 0 and checked.stdout.strip() == fixture_fit + ": ok: calibration",
          "gpuscale check accepts the network calibration: " + checked.stdout + checked.stderr)
    if fit.returncode == 0:
        values, document = fitted_values(fixture_fit)
        check(document["network_fit"]["rows"] == 31 + 31 + 28,
              "fixtures: every row of nonzero size is fitted (the all-gather's two 0-byte sizes are not): %s"
              % document["network_fit"]["rows"])
        scenario = os.path.join(tmp, "scenario.yaml")
        with open(scenario, "w") as f:
            f.write("scenario:\n  name: resnet-rail-16\n  platform: %s\n  workload: %s\n  gpus: 16\n"
                    "  global_batch_size: 2048\n  micro_batch_size: 128\n  network_calibration: fixtures.yaml\n"
                    % (rail_4node, resnet))
        results = os.path.join(tmp, "run.h5")
        ran = run("run", scenario, "-o", results)
        check(ran.returncode == 0, "a run with network_calibration: " + ran.stderr)
        if ran.returncode == 0:
            row = pd.read_hdf(results, "runs").iloc[0]
            for column, name in (("scale_up_link_fraction", "network.nvswitch@hopper"), ("nic_link_fraction", "network.nic"),
                                 ("collective_fixed_s", "collective.fixed")):
                check(abs(row[column] / values[name] - 1) < 1e-9,
                      "the run's %s %r is the fitted %s %r" % (column, row[column], name, values[name]))
        # Sweepable like every key: the fixtures' fit against the round trip's.
        sweep = os.path.join(tmp, "sweep.yaml")
        with open(sweep, "w") as f:
            f.write("scenario:\n  name: resnet-rail-16\n  platform: %s\n  workload: %s\n  gpus: 16\n"
                    "  global_batch_size: 2048\n  micro_batch_size: 128\nsweep:\n"
                    "  network_calibration: [fixtures.yaml, round_trip.yaml]\n" % (rail_4node, resnet))
        swept = run("sweep", sweep, "-o", os.path.join(tmp, "sweep.h5"))
        check(swept.returncode == 0, "a sweep over network_calibration: " + swept.stderr)
        if swept.returncode == 0 and os.path.exists(output):
            rows = pd.read_hdf(os.path.join(tmp, "sweep.h5"), "runs").sort_values("sweep_point")
            check(list(rows["scale_up_link_fraction"].round(6)) ==
                  [round(values["network.nvswitch@hopper"], 6), round(fitted_values(output)[0]["network.nvswitch@hopper"], 6)],
                  "each sweep point runs its network calibration: %s" % list(rows["scale_up_link_fraction"]))
        printed = run("nccl-tests", rail_4node, "--op", "all_reduce", "--gpus", "8", "-b", "1G", "-e", "1G",
                      "--network-calibration", fixture_fit)
        check(printed.returncode == 0 and ("nvswitch %.4g" % values["network.nvswitch@hopper"]) in printed.stdout,
              "nccl-tests --network-calibration prints the fitted table: " + printed.stdout + printed.stderr)

    # (c) Bad input: exit 2, the located message, nothing written.
    broken = os.path.join(tmp, "broken.txt")
    with open(os.path.join(fixtures, "all_reduce_1node_8xh100.txt")) as f:
        lines = f.read().splitlines(True)
    lines[19] = lines[19].replace("          64            16", "          64           abc")
    with open(broken, "w") as f:
        f.writelines(lines)
    four_per_host = os.path.join(tmp, "four_per_host.txt")
    with open(os.path.join(fixtures, "all_reduce_2node_16xh100.txt")) as f:
        text = f.read()
    for rank in range(16):  # the same 16 ranks on four hosts of four
        text = text.replace("#  Rank %2d Group  0 Pid  %d on     node0%d" % (rank, 51200 + rank if rank < 8 else 48800 + rank - 8,
                                                                        1 if rank < 8 else 2),
                            "#  Rank %2d Group  0 Pid  %d on     host%d" % (rank, 51200 + rank if rank < 8 else 48800 + rank - 8,
                                                                          rank // 4))
    with open(four_per_host, "w") as f:
        f.write(text)
    sendrecv = os.path.join(tmp, "sendrecv.txt")
    with open(sendrecv, "w") as f:
        f.write(open(os.path.join(fixtures, "all_reduce_1node_8xh100.txt")).read().replace("all_reduce_perf", "sendrecv_perf"))
    kept = os.path.join(tmp, "kept.txt")
    shutil.copy(os.path.join(fixtures, "all_reduce_1node_8xh100.txt"), kept)
    ar_1node = os.path.join(fixtures, "all_reduce_1node_8xh100.txt")
    refused = os.path.join(tmp, "refused.yaml")
    for args, message in (
            (("--platform", rail_4node, "--nccl-tests", broken),
             "%s:20:24: error: /rows/3/count: expected a count of elements (a non-negative integer), got 'abc'\n"
             "gpuscale: 1 error(s); nothing was written" % broken),
            (("--platform", dgx_a100, "--nccl-tests", ar_1node),
             "%s:5:1: error: /devices/0: the logged device 'NVIDIA H100 80GB HBM3' is h100-sxm5-80gb, %s's first nodes "
             "have a100-sxm4-80gb\ngpuscale: 1 error(s); nothing was written" % (ar_1node, dgx_a100)),
            (("--platform", dgx_h100, "--nccl-tests", os.path.join(fixtures, "all_reduce_2node_16xh100.txt")),
             "%s:7:1: error: /devices: 16 ranks, %s has 8 GPUs\ngpuscale: 1 error(s); nothing was written"
             % (os.path.join(fixtures, "all_reduce_2node_16xh100.txt"), dgx_h100)),
            (("--platform", rail_4node, "--nccl-tests", four_per_host),
             "%s:7:1: error: /devices: 16 ranks on 4 hosts (4 per host); a run of 16 GPUs of %s uses 2 node(s) of 8 GPUs "
             "(dgx-h100): the logged ranks are not laid out as the platform's first nodes\n"
             "gpuscale: 1 error(s); nothing was written" % (four_per_host, rail_4node)),
            (("--platform", rail_4node, "--nccl-tests", "allgather=" + ar_1node),
             "gpuscale: error: --nccl-tests allgather=%s: unknown collective 'allgather' before '=' (known: all_reduce, "
             "reduce_scatter, all_gather, broadcast, alltoall)" % ar_1node),
            (("--platform", rail_4node, "--nccl-tests", sendrecv),
             "%s:1:3: error: sendrecv_perf logs are not read (known: all_reduce_perf, reduce_scatter_perf, all_gather_perf, "
             "broadcast_perf, alltoall_perf)\ngpuscale: 1 error(s); nothing was written" % sendrecv),
            (("--platform", rail_4node, "--nccl-tests", os.path.join(fixtures, "all_gather_1node_8xh100.txt")),
             "%s: error: the log names no program (all_reduce_perf, ...) and its columns (redop none, root -1) fit "
             "all_gather and alltoall: name the collective\ngpuscale: 1 error(s); nothing was written"
             % os.path.join(fixtures, "all_gather_1node_8xh100.txt")),
            (("--platform", rail_4node, "--nccl-tests", ar_1node, "--collective", "rings"),
             "gpuscale: error: --collective: unknown collective algorithm 'rings' (known: ring, ring_flow, hierarchical, "
             "hierarchical_flow, halving_doubling, auto)")):
        failed = run("calibrate-network", *args, "-o", refused)
        what = " ".join(os.path.basename(a) for a in args)
        check(failed.returncode == 2, "%s exits 2, got %d" % (what, failed.returncode))
        check(failed.stderr.strip() == message, "%s: expected\n  %s\ngot\n  %s" % (what, message, failed.stderr.strip()))
        check(not os.path.exists(refused), "%s writes nothing" % what)
    failed = run("calibrate-network", "--platform", rail_4node, "--nccl-tests", kept, "-o", kept)
    check(failed.returncode == 2 and failed.stderr.strip() ==
          "%s: error: cannot write the output: it is the input %s\ngpuscale: 1 error(s); nothing was written" % (kept, kept),
          "the output may not be an input: " + failed.stderr)
    check(open(kept).read() == open(ar_1node).read(), "the input is left as it was")

    # A scenario naming a network calibration that does not exist, or one with nothing to apply.
    empty = os.path.join(tmp, "empty.yaml")
    with open(empty, "w") as f:
        f.write("calibration:\n  command: \"\"\n")
    for value, message in (("missing.yaml", "network_calibration file '%s' does not exist" % os.path.join(tmp, "missing.yaml")),
                           ("empty.yaml", "the calibration file '%s' has no network: or collective: values to apply" % empty)):
        scenario = os.path.join(tmp, "bad_scenario.yaml")
        with open(scenario, "w") as f:
            f.write("scenario:\n  name: resnet-rail-16\n  platform: %s\n  workload: %s\n  gpus: 16\n"
                    "  global_batch_size: 2048\n  micro_batch_size: 128\n  network_calibration: %s\n"
                    % (rail_4node, resnet, value))
        failed = run("run", scenario, "-o", os.path.join(tmp, "bad.h5"))
        expected = "%s:8:24: error: /scenario/network_calibration: %s" % (scenario, message)
        check(failed.returncode == 2 and failed.stderr.splitlines()[0] == expected,
              "network_calibration: %s: expected\n  %s\ngot\n  %s" % (value, expected, failed.stderr))

tally.finish()
