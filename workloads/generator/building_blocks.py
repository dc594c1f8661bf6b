"""Layer records and the cost helpers that every model generator shares.

Conventions (workloads/SCHEMA.md states them for readers of the YAML):

* FLOPs = 2 x multiply-accumulates (MACs) of matmuls and convolutions, plus the cheap
  elementwise ops (norms, activations, softmax, residual adds, dropout) counted per element
  from their defining formulas (ELEMENTWISE_FLOP_PER_ELEMENT). A transcendental (exp, erf,
  tanh, log, rsqrt) counts as 1 FLOP.
* Backward FLOPs follow from how gradients flow (backward_factor):
  2x forward for a layer whose weights are trainable (input-gradient GEMM + weight-gradient GEMM),
  2x forward for the parameter-free attention core (QK^T and AV both take two activation operands,
  and both operands need a gradient),
  1x forward for a layer that has no trainable weight but must pass a gradient upstream
  (frozen LoRA base weights, ReLU, pooling, residual adds, losses),
  0 for a layer with nothing trainable upstream (frozen encoders that only run forward).
  Elementwise work fused into a layer takes that layer's factor.
* Activation bytes count each tensor that some backward needs once, at the layer that produces it
  (producer convention): e.g. a linear layer's input is counted as the output of the layer before
  it. Under this convention the per-layer sums of a transformer block reproduce Korthikanti et al.
  2022, "Reducing Activation Recomputation in Large Transformer Models", Sec. 4.1, eq. (1):
  s*b*h*(34 + 5*a*s/h) bytes per layer in 16-bit precision.
* Tensor and context parallelism (Megatron-LM) are annotations on a layer, not costs: they say how
  the simulator may shard it and what it must communicate (column_parallel, row_parallel,
  context_parallel_kv below; workloads/SCHEMA.md, "Tensor and context parallelism").
"""

from dataclasses import dataclass, replace

#: Backward modes of a layer (see backward_factor).
TRAINABLE = "trainable"        # its weights receive gradients
FROZEN = "frozen"              # no weight gradients, but the input gradient is needed upstream
FORWARD_ONLY = "forward_only"  # nothing trainable upstream: no backward at all

MODES = (TRAINABLE, FROZEN, FORWARD_ONLY)

#: Megatron-LM tensor-parallel modes (Shoeybi et al. 2019, Sec. 3). A layer without one is replicated
#: on every tensor-parallel rank.
COLUMN = "column"  # split along its output dimension (or heads, or the split hidden of an MLP): no communication
ROW = "row"        # split along its input dimension: partial outputs are all-reduced in forward

#: Layer kinds accepted by the schema (spec: workloads/<name>.yaml).
KINDS = ("embedding", "conv", "linear", "attention", "norm", "activation", "pool",
         "elementwise", "loss", "lora_linear", "other")

#: Bytes of a dropout mask element (PyTorch stores masks as bool) and of fp32 statistics.
MASK_BYTES = 1
FP32_BYTES = 4

#: FLOPs per element of cheap elementwise ops, counted from each op's formula.
ELEMENTWISE_FLOP_PER_ELEMENT = {
    "add": 1,                # a + b
    "relu": 1,               # max(x, 0)
    "tanh": 1,               # one transcendental
    "silu": 3,               # x / (1 + exp(-x)): exp, add, divide
    "gelu": 5,               # 0.5 x (1 + erf(x / sqrt 2)): scale, erf, add, 2 multiplies
    "swiglu": 4,             # silu(g) * u
    "geglu": 6,              # gelu(g) * u
    "softmax": 5,            # row max, subtract, exp, row sum, divide
    "log_softmax": 5,        # row max, subtract, exp, row sum, subtract log-sum (one log per row)
    "dropout": 2,            # compare a random number with p, scale the kept element
    "layernorm": 7,          # mean 1, centre 1, square-accumulate 2, normalise 1, affine 2
    "groupnorm": 7,          # same arithmetic as layernorm over channel groups
    "batchnorm": 7,          # same arithmetic with batch statistics (training mode)
    "frozen_batchnorm": 2,   # precomputed per-channel scale and shift
    "rmsnorm": 4,            # square-accumulate 2, normalise 1, gain 1
    "rope": 3,               # x*cos + rotate(x)*sin
    "sinusoid": 2,           # cos or sin of t * frequency
    "scale_add": 2,          # y + s*x (LoRA scaling, noise mixing)
    "mse": 3,                # subtract, square, accumulate
    "l1": 3,                 # subtract, abs, accumulate
    "sigmoid_focal": 19,     # sigmoid 3, BCE-with-logits 6, p_t 4, (1-p_t)^2 2, alpha_t 3, product 1
    "gaussian_sample": 5,    # mean + exp(0.5*logvar)*eps, then * scale factor
    "noise_mix": 3,          # sqrt(abar)*x0 + sqrt(1-abar)*eps
}


@dataclass(frozen=True)
class Cost:
    """Parameters and work of one op or a fusion of ops (per sample)."""

    params: int = 0             # weights that follow the layer's mode (trainable unless the layer is frozen)
    frozen_params: int = 0      # weights frozen regardless of mode (e.g. FrozenBatchNorm2d affine)
    macs: int = 0               # multiply-accumulates of matmuls and convolutions
    elementwise_flops: int = 0  # cheap elementwise FLOPs

    def __add__(self, other):
        return Cost(self.params + other.params, self.frozen_params + other.frozen_params,
                    self.macs + other.macs, self.elementwise_flops + other.elementwise_flops)

    @property
    def forward_flops(self):
        return 2 * self.macs + self.elementwise_flops


@dataclass(frozen=True)
class Layer:
    """One layer of a workload trace, in the units of the YAML schema (per sample)."""

    name: str
    kind: str
    trainable_params: int
    frozen_params: int
    forward_flops: int
    backward_flops: int
    activation_bytes: int
    recomputed: bool
    matmul_flops: int  # the 2 x MACs part of forward_flops; not written to YAML, used by tests and docs
    # Optional parallelism annotations (None: key omitted from the YAML).
    tensor_parallel: str = None  # COLUMN, ROW or None (replicated)
    tp_comm_bytes: int = None    # row: forward all-reduce of the output; first column of a sub-block:
                                 # backward all-reduce of the input gradient
    cp_comm_bytes: int = None    # attention core: K and V that context parallelism all-gathers


@dataclass(frozen=True)
class Workload:
    """A whole trace: the keys of the schema's `workload:` mapping."""

    name: str
    benchmark: str
    description: str
    precision: str
    sample: str
    optimizer: str
    layers: tuple


# ---- costs -------------------------------------------------------------------------------------

def conv_out_size(size, kernel, stride, padding):
    """Output edge of a convolution or pooling window (PyTorch Conv2d docs, 'Shape')."""
    return (size + 2 * padding - kernel) // stride + 1


def conv2d(c_in, c_out, kernel, out_h, out_w, groups=1, bias=False):
    """Conv2d: weights c_out*(c_in/groups)*k*k; one MAC per weight per output position."""
    weights = c_out * (c_in // groups) * kernel * kernel
    return Cost(params=weights + (c_out if bias else 0), macs=out_h * out_w * weights)


def linear(tokens, d_in, d_out, bias):
    """Linear layer applied to `tokens` rows: tokens*d_in*d_out MACs."""
    return Cost(params=d_in * d_out + (d_out if bias else 0), macs=tokens * d_in * d_out)


def attention_pairs(q_tokens, kv_tokens, causal):
    """Query-key pairs that are computed. Causal attention counts only the unmasked pairs,
    q(q+1)/2, which is what block-skipping kernels (FlashAttention-2, Dao 2023, Sec. 3.1) compute."""
    if causal:
        assert q_tokens == kv_tokens
        return q_tokens * (q_tokens + 1) // 2
    return q_tokens * kv_tokens


def attention_core(q_tokens, kv_tokens, heads, head_dim, causal=False):
    """softmax(Q K^T / sqrt(d)) V without projections (Vaswani et al. 2017, eq. 1):
    QK^T and AV each cost heads*head_dim MACs per computed pair; softmax is elementwise on the scores.
    Grouped-query attention shares K/V heads but does not change these MACs."""
    pairs = attention_pairs(q_tokens, kv_tokens, causal)
    return Cost(macs=2 * heads * head_dim * pairs,
                elementwise_flops=ELEMENTWISE_FLOP_PER_ELEMENT["softmax"] * heads * pairs)


def norm(op, elements, channels):
    """Normalisation over `elements` values with per-channel affine weights."""
    flops = ELEMENTWISE_FLOP_PER_ELEMENT[op] * elements
    if op == "rmsnorm":
        return Cost(params=channels, elementwise_flops=flops)
    if op == "frozen_batchnorm":
        return Cost(frozen_params=2 * channels, elementwise_flops=flops)
    return Cost(params=2 * channels, elementwise_flops=flops)


def elementwise(op, elements):
    return Cost(elementwise_flops=ELEMENTWISE_FLOP_PER_ELEMENT[op] * elements)


def embedding(rows, dim):
    """A lookup table: rows*dim weights, no MACs."""
    return Cost(params=rows * dim)


# ---- layers ------------------------------------------------------------------------------------

def backward_factor(kind, mode, cost):
    """Backward FLOPs as a multiple of forward FLOPs (module docstring: the backward rule)."""
    if mode == FORWARD_ONLY:
        return 0
    if kind == "attention" and cost.params == 0:
        return 2
    if mode == TRAINABLE and cost.params > 0:
        return 2
    return 1


def make_layer(name, kind, cost, mode, activation_bytes, recomputed):
    """Turn a Cost into a Layer, applying the backward rule and the mode's parameter split."""
    assert kind in KINDS and kind != "lora_linear", kind
    assert mode in MODES, mode
    if mode == TRAINABLE:
        trainable, frozen = cost.params, cost.frozen_params
    else:
        trainable, frozen = 0, cost.params + cost.frozen_params
    forward = cost.forward_flops
    return Layer(name=name, kind=kind, trainable_params=trainable, frozen_params=frozen,
                 forward_flops=forward, backward_flops=backward_factor(kind, mode, cost) * forward,
                 activation_bytes=activation_bytes, recomputed=recomputed, matmul_flops=2 * cost.macs)


def lora_adapter(tokens, d_in, d_out, rank):
    """LoRA path dropout(x) A^T B^T * (alpha/r) (Hu et al. 2021, eq. 3; PEFT LoraLayer.forward):
    r*(d_in+d_out) trainable weights, dropout on the input, scale-and-add on the output."""
    return Cost(params=rank * (d_in + d_out), macs=tokens * rank * (d_in + d_out),
                elementwise_flops=(ELEMENTWISE_FLOP_PER_ELEMENT["dropout"] * tokens * d_in
                                   + ELEMENTWISE_FLOP_PER_ELEMENT["scale_add"] * tokens * d_out))


def lora_linear_layer(name, tokens, d_in, d_out, rank, activation_bytes, recomputed):
    """A frozen bias-free linear layer with a trainable LoRA adapter. Backward = 1x the base
    forward (input gradient through frozen weights) + 2x the adapter forward (its weights train)."""
    base = linear(tokens, d_in, d_out, bias=False)
    adapter = lora_adapter(tokens, d_in, d_out, rank)
    return Layer(name=name, kind="lora_linear", trainable_params=adapter.params, frozen_params=base.params,
                 forward_flops=base.forward_flops + adapter.forward_flops,
                 backward_flops=base.forward_flops + 2 * adapter.forward_flops,
                 activation_bytes=activation_bytes, recomputed=recomputed,
                 matmul_flops=2 * (base.macs + adapter.macs))


def unused_weights_layer(name, frozen_params):
    """Weights that are loaded (and occupy memory) but take no part in the training step."""
    return Layer(name=name, kind="other", trainable_params=0, frozen_params=frozen_params, forward_flops=0,
                 backward_flops=0, activation_bytes=0, recomputed=False, matmul_flops=0)


def column_parallel(layer, input_gradient_bytes=None):
    """Mark a layer of the split region of a Megatron sub-block (Shoeybi et al. 2019, Sec. 3, Fig. 3):
    a column-parallel linear (output features split), the attention core (heads split) or the
    elementwise op between a column and a row linear (GELU/SwiGLU/GEGLU on the split hidden).
    `input_gradient_bytes` is given on the first column layer of a sub-block only: the sub-block's input
    (s*h elements) whose gradient Megatron's `f` operator all-reduces in backward. Leave it out when the
    layer has no backward (nothing trainable upstream: no input gradient, no all-reduce)."""
    assert layer.tensor_parallel is None, layer.name
    assert input_gradient_bytes is None or (input_gradient_bytes > 0 and layer.backward_flops > 0), layer.name
    return replace(layer, tensor_parallel=COLUMN, tp_comm_bytes=input_gradient_bytes)


def row_parallel(layer, output_bytes):
    """Mark a row-parallel linear: input features split, the partial outputs (s*h elements, the
    sub-block's output) all-reduced in forward by Megatron's `g` operator (Shoeybi et al. 2019, Fig. 3)."""
    assert layer.tensor_parallel is None and output_bytes > 0, layer.name
    return replace(layer, tensor_parallel=ROW, tp_comm_bytes=output_bytes)


def context_parallel_kv(layer, tokens, kv_heads, head_dim, element_bytes):
    """K and V of a self-attention core, which context parallelism all-gathers over the sequence in
    forward (and re-gathers, then reduce-scatters as gradients, in backward): tokens * 2 * kv_heads *
    head_dim elements (Megatron-Core context_parallel guide; Liu et al. 2023, "Ring Attention")."""
    assert layer.kind == "attention" and layer.cp_comm_bytes is None, layer.name
    return replace(layer, cp_comm_bytes=tokens * 2 * kv_heads * head_dim * element_bytes)


def bytes_per_element(precision):
    """Element size of activations kept at the training precision."""
    return {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1}[precision]
