#!/usr/bin/python3
"""Generate the layer-level workload traces: the five MLPerf Training models, and pre-training traces of
Llama 3.1 8B/405B, GPT-3 175B and the GPT family of Megatron-LM's weak-scaling table (Narayanan et al.
2021, Table 1; written to workloads/megatron-gpt/), which run at the calibrated kernel efficiencies of
an MLPerf benchmark (`efficiency_benchmark`).

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
from functools import partial

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gpt                                       # noqa: E402
from bert import bert_large                      # noqa: E402
from llama2 import llama2_70b_lora               # noqa: E402
from llama31 import llama31_405b, llama31_8b     # noqa: E402
from resnet_family import resnet50               # noqa: E402
from retinanet import retinanet                  # noqa: E402
from stable_diffusion import stable_diffusion    # noqa: E402
from yaml_writer import render                   # noqa: E402

#: The MLPerf Training benchmarks (`benchmark:`), written to the output directory itself.
MODELS = (resnet50, bert_large, llama2_70b_lora, retinanet, stable_diffusion)
#: Pre-training traces that run at an MLPerf benchmark's calibrated efficiencies (`efficiency_benchmark:`).
PRETRAINING_MODELS = (llama31_8b, llama31_405b, gpt.gpt3_175b)
#: Narayanan et al. 2021, Table 1, one trace per row, written to the sub-folder gpt.MEGATRON_GPT_FOLDER.
MEGATRON_GPT_MODELS = tuple(partial(gpt.megatron_gpt, config) for config in gpt.MEGATRON_GPT_CONFIGS)

#: (sub-folder of the output directory, models), in the order the tables list them.
GROUPS = (("", MODELS), ("", PRETRAINING_MODELS), (gpt.MEGATRON_GPT_FOLDER, MEGATRON_GPT_MODELS))


def _grouped_workloads():
    """[(sub-folder, workload)] for every model."""
    return [(folder, model()) for folder, models in GROUPS for model in models]


def all_workloads():
    return [workload for _, workload in _grouped_workloads()]


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


def file_name(workload, folder=""):
    """The path of a workload's file relative to the output directory ('/'-separated)."""
    return (folder + "/" if folder else "") + workload.name + ".yaml"


def render_all(repeat_groups=True):
    """{file path relative to the output directory: YAML text} for every model (the Megatron-LM GPT family
    in its sub-folder); repeat_groups=False writes every layer out (the text the committed files expand to)."""
    return {file_name(w, folder): render(w, totals_comment(w), repeat_groups) for folder, w in _grouped_workloads()}


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


def megatron_gpt_markdown():
    """The parameter and FLOP check of docs/WORKLOADS.md (between its 'generated megatron-gpt' markers):
    each GPT trace against its published size (GPT-3: Brown et al. 2020, Table 2.1; the family: Narayanan
    et al. 2021, Table 1, both in billions with one decimal), and against Narayanan et al.'s eq. (2)
    (parameters) and eq. (3) per sequence and pass (forward FLOPs, with all s^2 query-key pairs)."""
    rows = [
        "| workload | layers | hidden | heads | trace params | eq. (2) params | trace (B) | published (B) "
        "| trace forward GFLOP/sequence | of it matmul | eq. (3) forward GFLOP | matmul / eq. (3) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    published = [(gpt.GPT3_175B, "175.0")] + [(gpt.megatron_config(*row), row[0]) for row in gpt.MEGATRON_TABLE_1]
    workloads = {w.name: w for w in all_workloads()}
    for config, label in published:
        t = totals(workloads[config.name])
        paper_params = gpt.paper_parameter_count(config.layers, config.hidden)
        paper_flops = gpt.paper_forward_flops(config.layers, config.hidden)
        rows.append("| %s | %d | %d | %d | %s | %s | %.1f | %s | %s | %s | %s | %.3f |" % (
            config.name, config.layers, config.hidden, config.heads, format(t["trainable_params"], ","),
            format(paper_params, ","), t["trainable_params"] / 1e9, label,
            format(t["forward_flops"] / 1e9, ",.1f"), format(t["matmul_flops"] / 1e9, ",.1f"),
            format(paper_flops / 1e9, ",.1f"), t["matmul_flops"] / paper_flops))
    return "\n".join(rows) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="directory to write <workload>.yaml files into")
    parser.add_argument("--check", action="store_true",
                        help="with --out: compare the files with a fresh generation instead of writing them")
    parser.add_argument("--flat", action="store_true",
                        help="write every layer out instead of repeat groups (what the committed files expand to)")
    parser.add_argument("--summary", action="store_true",
                        help="print the totals, parallelism and Megatron-LM GPT tables of docs/WORKLOADS.md "
                             "(markdown)")
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
                os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
                with open(path, "w", encoding="utf-8", newline="\n") as f:
                    f.write(text)
    if args.summary:
        sys.stdout.write(summary_markdown() + "\n" + parallelism_markdown() + "\n" + megatron_gpt_markdown())
    return status


if __name__ == "__main__":
    sys.exit(main())
