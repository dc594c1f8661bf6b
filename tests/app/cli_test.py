#!/usr/bin/python3
"""The gpuscale command line as a user meets it: exit codes, located errors on stderr, nothing written
on failure, the summary on success, platform export. Usage: cli_test.py BUILD_DIR SOURCE_DIR"""

import os
import subprocess
import sys
import tempfile

build_dir, source_dir = sys.argv[1], sys.argv[2]
gpuscale = os.path.join(build_dir, "gpuscale")
sys.path.insert(0, os.path.join(source_dir, "tests", "support"))
from check_tally import Tally  # noqa: E402

tally = Tally()
check = tally.check


def run(*args):
    return subprocess.run([gpuscale, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    results = os.path.join(tmp, "results.h5")
    ok = run("run", os.path.join(source_dir, "scenarios", "default.yaml"), "-o", results)
    check(ok.returncode == 0, "default scenario runs: " + ok.stderr)
    for line in ("iteration", "compute", "communication", "exposed comm.", "memory", "time to train", "host ",
                 "simgrid    network/model:CM02"):
        check(line in ok.stdout, "summary shows " + line)
    before = open(results, "rb").read()

    # A calibrated MLPerf scenario trains the samples MLPerf submissions do: the RCP table's times the
    # calibration's convergence factor for its benchmark and batch, and the summary says so.
    import re
    with open(os.path.join(source_dir, "calibration", "mlperf.yaml")) as f:
        factor = re.search(r"benchmark: bert, global_batch_size: 768, factor: ([0-9.e-]+)", f.read())
    check(factor is not None, "the committed calibration has BERT's factor at batch 768")
    bert = run("run", os.path.join(source_dir, "scenarios", "mlperf", "bert-dgx-h100-8gpu.yaml"), "-o",
               os.path.join(tmp, "bert.h5"))
    check(bert.returncode == 0, "the DGX H100 BERT scenario runs: " + bert.stderr)
    if factor is not None:
        check("note: samples to converge are the convergence table's times %.4g" % float(factor.group(1))
              in bert.stdout, bert.stdout)

    bad = os.path.join(tmp, "bad.yaml")
    with open(bad, "w") as f:
        f.write("scenario:\n  name: bad\n  platform: %s\n  workload: %s\n  gpus: 8\n  global_batch_size: 100\n"
                "  micro_batch_size: 8\n  zero_stage: 7\n  colective: ring\n"
                % (os.path.join(source_dir, "platforms", "dgx-a100-1node.yaml"),
                   os.path.join(source_dir, "workloads", "resnet50.yaml")))
    failure = run("run", bad, "-o", results)
    check(failure.returncode == 2, "bad scenario exits with 2, got %d" % failure.returncode)
    check(bad + ":8:15: error: /scenario/zero_stage: expected an integer in [0, 3], got 7" in failure.stderr, failure.stderr)
    check(bad + ":9:3: error: /scenario/colective: unknown key 'colective'" in failure.stderr, failure.stderr)
    check("is not a multiple of micro_batch_size x data-parallel replicas" in failure.stderr, failure.stderr)
    check(open(results, "rb").read() == before, "a failed run leaves the results file byte-identical")

    corrupt = os.path.join(tmp, "corrupt.h5")
    with open(corrupt, "wb") as f:
        f.write(b"\x89HDF\r\n\x1a\n but then garbage")
    failure = run("run", os.path.join(source_dir, "scenarios", "default.yaml"), "-o", corrupt)
    check(failure.returncode == 2 and "corrupt" in failure.stderr and corrupt in failure.stderr, failure.stderr)
    check(open(corrupt, "rb").read() == b"\x89HDF\r\n\x1a\n but then garbage", "corrupt file untouched")

    xml = os.path.join(tmp, "p.xml")
    exported = run("platform", "export", os.path.join(source_dir, "platforms", "dgx-h100-4node-rail.yaml"), "-o", xml)
    check(exported.returncode == 0, exported.stderr)
    text = open(xml).read() if os.path.exists(xml) else ""
    check(text.count("<host ") == 32, "32 GPU hosts exported")
    check(text.count("<route ") == 32 * 31, "a route per ordered GPU pair")
    check(run("frobnicate").returncode == 2, "unknown subcommand is a usage error: exit 2")

    # One exit-code convention: usage errors and missing data are bad input (2), as CLI11's own are.
    missing = os.path.join(tmp, "no-such-folder")
    for command in (("validate", "--mlperf", missing), ("calibrate", "--mlperf", missing, "-o", os.path.join(tmp, "c.yaml")),
                    ("validate",), ("run",), ("sweep", "--jobs", "two")):
        failed = run(*command)
        check(failed.returncode == 2, "%s exits 2, got %d: %s" % (" ".join(command), failed.returncode, failed.stderr))
    check(run("validate", "--mlperf", missing).stderr.startswith("--mlperf: Directory does not exist: " + missing),
          "the missing folder is named")
    check(not os.path.exists(os.path.join(tmp, "c.yaml")), "nothing written")
    helped = run("sweep", "--help")
    check(helped.returncode == 0 and "-o,--output TEXT REQUIRED (unless --dry-run)" in helped.stdout, helped.stdout)
    check(run("--version").returncode == 0, "--version exits 0")

    # fp8 on an accelerator without FP8 units is refused where the precision was set, not run as bf16.
    fp8 = os.path.join(tmp, "fp8.yaml")
    with open(fp8, "w") as f:
        f.write("scenario:\n  name: fp8-a100\n  platform: %s\n  workload: %s\n  gpus: 8\n  global_batch_size: 64\n"
                "  micro_batch_size: 8\n  precision: fp8\n"
                % (os.path.join(source_dir, "platforms", "dgx-a100-1node.yaml"),
                   os.path.join(source_dir, "workloads", "bert-large.yaml")))
    refused = run("run", fp8, "-o", os.path.join(tmp, "fp8.h5"))
    check(refused.returncode == 2 and refused.stderr.startswith(
        fp8 + ":8:14: error: /scenario/precision: accelerator 'a100-sxm4-80gb' has no FP8 units (it has fp32, tf32, "
        "fp16, bf16): set a precision it has\n"), refused.stderr)
    fp8_workload = os.path.join(tmp, "bert-fp8.yaml")
    with open(os.path.join(source_dir, "workloads", "bert-large.yaml")) as f:
        trace = f.read()
    with open(fp8_workload, "w") as f:
        f.write(trace.replace("  precision: fp16\n", "  precision: fp8\n", 1))
    with open(fp8, "w") as f:
        f.write("scenario:\n  name: fp8-a100\n  platform: %s\n  workload: %s\n  gpus: 8\n  global_batch_size: 64\n"
                "  micro_batch_size: 8\n" % (os.path.join(source_dir, "platforms", "dgx-a100-1node.yaml"), fp8_workload))
    refused = run("run", fp8, "-o", os.path.join(tmp, "fp8.h5"))
    precision_line = trace.split("\n").index("  precision: fp16") + 1
    check(refused.returncode == 2 and fp8_workload + ":%d:14: error: /workload/precision: accelerator 'a100-sxm4-80gb' "
          "has no FP8 units" % precision_line in refused.stderr, refused.stderr)
    check(not os.path.exists(os.path.join(tmp, "fp8.h5")), "nothing written for an fp8 request on an A100")

    # The setup line counts replicas, not GPUs, under tensor parallelism (8 GPUs = 2 replicas x tp 4).
    llama = run("run", os.path.join(source_dir, "scenarios", "mlperf", "llama2-70b-lora-dgx-h100-8gpu.yaml"))
    check("setup      ZeRO-0, fp8, global batch 8 = micro-batch 1 x 2 replica(s) x 4 accumulation step(s); 8 GPUs = "
          "2 replica(s) x tp 4 x cp 1, sequence parallel, collective nvls (auto), overlap_comm on\n"
          in llama.stdout, llama.stdout)

    # A benchmark can be named as the workload files name it or as MLPerf does.
    system = os.path.join(source_dir, "tests", "data", "mlperf", "hand_built_mi300x_8.json")
    by_mlperf_name = run("predict", "--system", system, "--benchmark", "bert")
    by_workload_name = run("predict", "--system", system, "--benchmark", "bert-large")
    check(by_workload_name.returncode == 0 and by_workload_name.stdout == by_mlperf_name.stdout,
          "predict --benchmark bert-large is bert: " + by_workload_name.stderr)
    unknown = run("predict", "--system", system, "--benchmark", "gpt3")
    check(unknown.returncode == 2 and "unknown benchmark 'gpt3' (known: bert (bert-large), llama2_70b_lora "
          "(llama2-70b-lora), resnet (resnet50), retinanet, stable_diffusion (stable-diffusion))" in unknown.stderr,
          unknown.stderr)

    # The efficiency analysis reads published MLPerf results (an import file) as it reads sweeps.
    imported = os.path.join(tmp, "mlperf.h5")
    check(run("mlperf", "import", os.path.join(source_dir, "tests", "data", "mlperf"), "-o", imported).returncode == 0,
          "mlperf import of the fixtures")
    report = run("frontier", imported, "-o", os.path.join(tmp, "mlperf-report"))
    check(report.returncode == 0 and "1 feasible configurations" in report.stdout, report.stdout + report.stderr)
    check(os.path.exists(os.path.join(tmp, "mlperf-report", "report.md")), "frontier report on published results")

    published_only = run("frontier", imported, "-o", os.path.join(tmp, "mlperf-report-x"), "--exclude-extrapolated")
    check(published_only.returncode == 0 and "1 feasible configurations" in published_only.stdout,
          "published results are measurements, never extrapolated: " + published_only.stdout + published_only.stderr)

    # Beyond the largest reference batch (RetinaNet: 4096) the summary says the convergence is extrapolated.
    with open(os.path.join(source_dir, "scenarios", "mlperf", "retinanet-dgx-h100-8gpu.yaml")) as f:
        beyond_text = f.read().replace("global_batch_size: 256", "global_batch_size: 8192")
    beyond_text = beyond_text.replace("../../", source_dir + "/")
    beyond = os.path.join(tmp, "retinanet-8192.yaml")
    with open(beyond, "w") as f:
        f.write(beyond_text)
    extrapolated = run("run", beyond, "-o", os.path.join(tmp, "beyond.h5"))
    check(extrapolated.returncode == 0, extrapolated.stderr)
    check("lies outside the reference convergence points [256, 4096]; samples to converge EXTRAPOLATED with the "
          "critical-batch-size fit" in extrapolated.stdout and "(95 % interval), time to train" in extrapolated.stdout,
          extrapolated.stdout)

    # The fit of every shipped table and its leave-largest-out check.
    report = run("workload", "convergence")
    check(report.returncode == 0, report.stderr)
    for benchmark in ("bert", "llama2_70b_lora", "resnet", "retinanet", "stable_diffusion"):
        check("convergence " + benchmark + " (" in report.stdout, "workload convergence reports " + benchmark)
    check(report.stdout.count("  fit        E(B) = E_min (1 + B / B_noise): E_min ") == 5, report.stdout)
    check(report.stdout.count("  held out   largest batch ") == 5, report.stdout)
    check("held out   largest batch 128: measured 1.126e+04 samples, predicted from the others 1.748e+04" in report.stdout,
          report.stdout)
    partial = run("workload", "convergence", "--benchmark", "bert")
    check(partial.returncode == 2 and "needs --rcp, --benchmark and -o together" in partial.stderr,
          "partial regeneration options: %d %s" % (partial.returncode, partial.stderr))

    mlperf = os.environ.get("GPUSCALE_MLPERF_DIR", os.path.join(source_dir, "..", "shared", "mlperf"))
    rcp = os.path.join(mlperf, "rcps", "training_4.1.0", "rcps_bert.json")
    if os.path.exists(rcp):
        table = os.path.join(tmp, "bert.yaml")
        with open(os.path.join(source_dir, "workloads", "convergence", "bert.yaml")) as f:
            committed = f.read()
        with open(table, "w") as f:
            f.write(committed.replace("samples: 2549219.5555555555", "samples: 1"))
        regenerated = run("workload", "convergence", "--rcp", rcp, "--benchmark", "bert", "-o", table)
        check(regenerated.returncode == 0, regenerated.stderr)
        check(open(table).read() == committed, "gpuscale workload convergence regenerates the committed bert table")
    elif os.environ.get("GPUSCALE_REQUIRE_MLPERF") == "1":
        check(False, "MLPerf data required but missing at " + mlperf)
    else:
        print("WARN: skipping the RCP regeneration check: no MLPerf data at " + mlperf)

tally.finish()
