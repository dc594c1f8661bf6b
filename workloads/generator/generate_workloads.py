#!/usr/bin/python3
"""Generate the layer-level workload traces of the five MLPerf Training models.

    /usr/bin/python3 workloads/generator/generate_workloads.py --out workloads/           # write
    /usr/bin/python3 workloads/generator/generate_workloads.py --out workloads/ --check   # compare only
    /usr/bin/python3 workloads/generator/generate_workloads.py --summary                  # docs tables
    /usr/bin/python3 workloads/generator/generate_workloads.py --out DIR --flat           # no repeat groups

Every layer is derived from the models' hyper-parameters (one module per model); nothing is typed
in as a total. Python 3 standard library only. Conventions: workloads/SCHEMA.md; sources and totals:
docs/WORKLOADS.md.
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bert import bert_large                      # noqa: E402
from llama2 import llama2_70b_lora               # noqa: E402
from resnet_family import resnet50               # noqa: E402
from retinanet import retinanet                  # noqa: E402
from stable_diffusion import stable_diffusion    # noqa: E402
from yaml_writer import render                   # noqa: E402

MODELS = (resnet50, bert_large, llama2_70b_lora, retinanet, stable_diffusion)


def all_workloads():
    return [model() for model in MODELS]


def totals(workload):
    """Per-sample sums over the layers of a workload (integers: FLOP, bytes, parameter counts)."""
    layers = workload.layers
    return {
        "trainable_params": sum(l.trainable_params for l in layers),
        "frozen_params": sum(l.frozen_params for l in layers),
        "forward_flops": sum(l.forward_flops for l in layers),
        "matmul_flops": sum(l.matmul_flops for l in layers),
        "backward_flops": sum(l.backward_flops for l in layers),
        "activation_bytes": sum(l.activation_bytes for l in layers),
        "checkpointed_activation_bytes": sum(l.activation_bytes for l in layers if not l.recomputed),
        "layers": len(layers),
        "column_layers": sum(1 for l in layers if l.tensor_parallel == "column"),
        "row_layers": sum(1 for l in layers if l.tensor_parallel == "row"),
        # Megatron's g (forward all-reduce on row layers) and f (backward all-reduce on column layers)
        "tp_forward_bytes": sum(l.tp_comm_bytes or 0 for l in layers if l.tensor_parallel == "row"),
        "tp_backward_bytes": sum(l.tp_comm_bytes or 0 for l in layers if l.tensor_parallel == "column"),
        "cp_bytes": sum(l.cp_comm_bytes or 0 for l in layers),
        "kernels": sum(len(l.kernels) for l in layers),
        "fused_kernels": sum(1 for l in layers for k in l.kernels if k.fused),
    }


def totals_comment(workload):
    t = totals(workload)
    return [
        "Totals per sample (informative; the simulator sums the layers itself):",
        "  params: %d trainable, %d frozen; %d layers" % (t["trainable_params"], t["frozen_params"], t["layers"]),
        "  forward %d FLOP (%d of it matmul/conv), backward %d FLOP"
        % (t["forward_flops"], t["matmul_flops"], t["backward_flops"]),
        "  activations %d B, of which %d B are kept under activation checkpointing"
        % (t["activation_bytes"], t["checkpointed_activation_bytes"]),
        "  kernels: %d forward kernels of one sample, %d of them fused into the kernel before"
        % (t["kernels"], t["fused_kernels"]),
    ] + ([
        "  tensor parallel: %d B all-reduced in forward (row layers), %d B in backward (column layers);"
        % (t["tp_forward_bytes"], t["tp_backward_bytes"]),
        "  context parallel: %d B of K/V gathered per forward" % t["cp_bytes"],
    ] if t["row_layers"] else [])


def file_name(workload):
    return workload.name + ".yaml"


def render_all(repeat_groups=True):
    """{file name: YAML text} for every model; repeat_groups=False writes every layer out (the text the
    committed files expand to)."""
    return {file_name(w): render(w, totals_comment(w), repeat_groups) for w in all_workloads()}


def summary_markdown():
    """The totals table of docs/WORKLOADS.md (between its 'generated totals' markers)."""
    rows = [
        "| workload | trainable params | frozen params | forward GFLOP/sample | backward GFLOP/sample "
        "| activations MB/sample | kept with checkpointing MB/sample | layers |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for w in all_workloads():
        t = totals(w)
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %d |" % (
            w.name, format(t["trainable_params"], ","), format(t["frozen_params"], ","),
            format(t["forward_flops"] / 1e9, ",.1f"), format(t["backward_flops"] / 1e9, ",.1f"),
            format(t["activation_bytes"] / 1e6, ",.1f"), format(t["checkpointed_activation_bytes"] / 1e6, ",.1f"),
            t["layers"]))
    return "\n".join(rows) + "\n"


def parallelism_markdown():
    """The tensor/context-parallel table of docs/WORKLOADS.md (between its 'generated parallelism' markers)."""
    rows = [
        "| workload | column layers | row layers | TP forward all-reduce MB/sample | TP backward all-reduce MB/sample "
        "| CP K/V all-gather MB/sample |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for w in all_workloads():
        t = totals(w)
        rows.append("| %s | %d | %d | %s | %s | %s |" % (
            w.name, t["column_layers"], t["row_layers"], format(t["tp_forward_bytes"] / 1e6, ",.1f"),
            format(t["tp_backward_bytes"] / 1e6, ",.1f"), format(t["cp_bytes"] / 1e6, ",.1f")))
    return "\n".join(rows) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="directory to write <workload>.yaml files into")
    parser.add_argument("--check", action="store_true",
                        help="with --out: compare the files with a fresh generation instead of writing them")
    parser.add_argument("--flat", action="store_true",
                        help="write every layer out instead of repeat groups (what the committed files expand to)")
    parser.add_argument("--summary", action="store_true",
                        help="print the totals table and the parallelism table of docs/WORKLOADS.md (markdown)")
    args = parser.parse_args(argv)
    if not args.out and not args.summary:
        parser.error("nothing to do: give --out DIR and/or --summary")
    if args.check and not args.out:
        parser.error("--check needs --out DIR")

    status = 0
    if args.out:
        for name, text in sorted(render_all(repeat_groups=not args.flat).items()):
            path = os.path.join(args.out, name)
            if args.check:
                try:
                    with open(path, encoding="utf-8") as f:
                        current = f.read()
                except FileNotFoundError:
                    current = None
                if current != text:
                    print("%s: differs from a fresh generation" % path, file=sys.stderr)
                    status = 1
            else:
                os.makedirs(args.out, exist_ok=True)
                with open(path, "w", encoding="utf-8", newline="\n") as f:
                    f.write(text)
    if args.summary:
        sys.stdout.write(summary_markdown() + "\n" + parallelism_markdown())
    return status


if __name__ == "__main__":
    sys.exit(main())
