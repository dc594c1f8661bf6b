"""Hand-written YAML for workload traces (the generator must run without PyYAML).

Emits exactly the keys of the schema (spec: workloads/<name>.yaml), in its order; dimensioned values
are quoted strings "<integer> FLOP" / "<integer> B"; counts are plain integers. A trace of an MLPerf
benchmark writes `benchmark:`; a trace that is none may write `efficiency_benchmark:` in its place (the
calibrated benchmark whose kernel efficiencies it runs at; workloads/SCHEMA.md, "Efficiency benchmark"). The optional
parallelism keys (tensor_parallel, tp_comm_bytes_per_sample, cp_comm_bytes_per_sample) follow
`recomputed` and are omitted where they do not apply. `kernels:` comes last, on every layer that has
kernels: one flow mapping per kernel on one line, keys in the schema's order (workloads/SCHEMA.md,
"Kernels"). Runs of identical blocks become repeat groups (repeat_groups.py; SCHEMA.md, "Repeated blocks").
"""

import re

from repeat_groups import PLACEHOLDER, RepeatGroup, group_repeats

#: Names as the schema defines them: lower-case kebab-case identifiers.
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9.-]*$")
#: Benchmark ids are MLPerf's (they contain underscores).
BENCHMARKS = ("bert", "llama2_70b_lora", "retinanet", "stable_diffusion", "resnet")
PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp8", "nvfp4", "mxfp4")
OPTIMIZERS = ("adam", "lamb", "sgd_momentum")
TENSOR_PARALLEL = ("column", "row")
#: Keys of each kernel op, in the order they are written (workloads/SCHEMA.md, "Kernels").
KERNEL_KEYS = {
    "gemm": ("op", "m", "n", "k", "batch", "backward_factor"),
    "conv": ("op", "h", "w", "c", "k", "r", "s", "stride", "pad", "groups", "backward_factor"),
    "attention": ("op", "heads", "kv_heads", "q", "kv", "head_dim", "causal", "backward_factor"),
    "elementwise": ("op", "elements", "flop_per_element", "bytes_per_element", "backward_factor", "fused"),
}
#: Plain scalars YAML 1.1/1.2 would not read as strings.
_RESERVED = {"null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"}

GENERATOR_COMMAND = "/usr/bin/python3 workloads/generator/generate_workloads.py --out workloads/"


def _plain_name(text):
    if not NAME_PATTERN.match(text) or text in _RESERVED or re.match(r"^[0-9.e+-]+$", text):
        raise ValueError("not a plain lower-case name: %r" % text)
    return text


def _quoted(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _integer(value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError("expected a non-negative integer, got %r" % (value,))
    return str(value)


def _parallelism_lines(layer):
    """The optional keys of one layer, after checking the combinations SCHEMA.md allows."""
    lines = []
    if layer.tensor_parallel is not None:
        if layer.tensor_parallel not in TENSOR_PARALLEL:
            raise ValueError("%s: tensor_parallel must be column or row, got %r" % (layer.name, layer.tensor_parallel))
        lines.append("      tensor_parallel: " + layer.tensor_parallel)
    if layer.tp_comm_bytes is not None:
        if layer.tensor_parallel is None or layer.tp_comm_bytes == 0:
            raise ValueError("%s: tp_comm_bytes_per_sample needs a tensor_parallel layer and a positive size"
                             % layer.name)
        lines.append('      tp_comm_bytes_per_sample: "%s B"' % _integer(layer.tp_comm_bytes))
    elif layer.tensor_parallel == "row":
        raise ValueError("%s: a row-parallel layer all-reduces its output: tp_comm_bytes_per_sample is missing"
                         % layer.name)
    if layer.cp_comm_bytes is not None:
        if layer.kind != "attention" or layer.cp_comm_bytes == 0:
            raise ValueError("%s: cp_comm_bytes_per_sample belongs on an attention layer, with a positive size"
                             % layer.name)
        lines.append('      cp_comm_bytes_per_sample: "%s B"' % _integer(layer.cp_comm_bytes))
    return lines


def _kernel_value(key, value):
    if key == "op":
        return value
    if key in ("causal", "fused"):
        if not isinstance(value, bool):
            raise ValueError("%s must be a boolean, got %r" % (key, value))
        return "true" if value else "false"
    return _integer(value)


def _kernel_lines(layer):
    """The `kernels:` list of one layer (none for a layer without kernels)."""
    if not layer.kernels:
        return []
    if layer.kernels[0].fused:
        raise ValueError("%s: a fused kernel cannot be the first kernel of a layer" % layer.name)
    lines = ["      kernels:"]
    for kernel in layer.kernels:
        items = kernel.items()
        if kernel.op not in KERNEL_KEYS or tuple(k for k, _ in items) != KERNEL_KEYS[kernel.op]:
            raise ValueError("%s: kernel keys %r are not the schema's" % (layer.name, [k for k, _ in items]))
        if kernel.backward_factor not in (0, 1, 2):
            raise ValueError("%s: backward_factor must be 0, 1 or 2" % layer.name)
        lines.append("        - {" + ", ".join("%s: %s" % (k, _kernel_value(k, v)) for k, v in items) + "}")
    return lines


def _layer_body(layer):
    """The lines of one layer after its name, as an entry of `workload.layers` writes them."""
    lines = [
        "      kind: " + layer.kind,
        "      trainable_params: " + _integer(layer.trainable_params),
        "      frozen_params: " + _integer(layer.frozen_params),
        '      forward_flops_per_sample: "%s FLOP"' % _integer(layer.forward_flops),
        '      backward_flops_per_sample: "%s FLOP"' % _integer(layer.backward_flops),
        '      activation_bytes_per_sample: "%s B"' % _integer(layer.activation_bytes),
        "      recomputed: " + ("true" if layer.recomputed else "false"),
    ]
    return tuple(lines + _parallelism_lines(layer) + _kernel_lines(layer))


def _entry_lines(name, body):
    return ["    - name: " + _plain_name(name)] + list(body)


def _group_lines(group):
    """A repeat group: its header, then its block one level deeper, names quoted (they hold `{i}`)."""
    lines = ["    - repeat: %d" % group.count]
    if group.first_index:
        lines.append("      first_index: %d" % group.first_index)
    lines.append("      layers:")
    for name, body in group.block:
        _plain_name(name.replace(PLACEHOLDER, str(group.first_index)))
        lines += ["        - name: " + _quoted(name)] + ["    " + line for line in body]
    return lines


def render(workload, totals_comment, repeat_groups=True):
    """The YAML text of one workload, with a header saying how it was generated. repeat_groups: runs of
    identical blocks as repeat groups (the committed form); False: every layer written out."""
    if (workload.benchmark is not None and workload.benchmark not in BENCHMARKS) \
            or workload.precision not in PRECISIONS or workload.optimizer not in OPTIMIZERS:
        raise ValueError("bad benchmark/precision/optimizer in %s" % workload.name)
    if workload.efficiency_benchmark is not None and (workload.efficiency_benchmark not in BENCHMARKS
                                                      or workload.benchmark is not None):
        raise ValueError("%s: efficiency_benchmark must be a benchmark id, on a trace without benchmark"
                         % workload.name)
    names = [layer.name for layer in workload.layers]
    if len(set(names)) != len(names):
        raise ValueError("duplicate layer names in %s" % workload.name)
    out = [
        "# generated by workloads/generator/generate_workloads.py; do not edit.",
        "# Regenerate every workload with: " + GENERATOR_COMMAND,
    ]
    out += ["# " + line for line in totals_comment]
    out += [
        "workload:",
        "  name: " + _plain_name(workload.name),
    ]
    if workload.benchmark is not None:
        out.append("  benchmark: " + workload.benchmark)
    if workload.efficiency_benchmark is not None:
        out.append("  efficiency_benchmark: " + workload.efficiency_benchmark)
    out += [
        "  description: " + _quoted(workload.description),
        "  precision: " + workload.precision,
        "  sample: " + _plain_name(workload.sample),
        "  optimizer: " + workload.optimizer,
        "  layers:",
    ]
    entries = [(layer.name, _layer_body(layer)) for layer in workload.layers]
    if repeat_groups:
        for item in group_repeats(entries):
            out += _group_lines(item) if isinstance(item, RepeatGroup) else _entry_lines(*item)
    else:
        for name, body in entries:
            out += _entry_lines(name, body)
    return "\n".join(out) + "\n"
