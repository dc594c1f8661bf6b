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
* Kernels: every cost helper also returns the forward kernels of ONE sample that do its work, in
  launch order (gemm, conv, attention, elementwise; workloads/SCHEMA.md, "Kernels"). The FLOPs of a
  layer and those of its kernels come from the same numbers, and make_layer checks that they agree:
  sum(kernel FLOP) == forward FLOP and sum(backward_factor x kernel FLOP) == backward FLOP.
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
    "bias_dropout_add": 4,   # bias add 1, dropout 2, residual add 1 (one fused kernel)
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
    "broadcast_add": 1,      # x + v, v one value per channel (a time embedding added to a feature map)
    # pure data movement: no arithmetic, but a kernel that reads and writes memory
    "gather": 0,             # embedding lookup / index select: copy one row per token
    "copy": 0,               # torch.cat of two tensors into a new one
    "upsample_nearest2x": 0,  # nearest-neighbour 2x upsampling: each input element written 4 times
}

#: HBM traffic of an elementwise op run as its own kernel, per element: (tensors of that many elements
#: at the training precision that it reads plus writes, extra bytes per element). bytes_per_element of
#: its kernel = tensors x element size + extra; at 16 bits e.g. add 6, layernorm 4, dropout 5.
#: Per-row or per-channel operands (norm statistics and affine weights, biases, RoPE tables held in
#: cache) are negligible and not counted.
ELEMENTWISE_TRAFFIC = {
    "add": (3, 0),                # reads a and b, writes a + b
    "broadcast_add": (2, 0),      # reads x, writes x + v (v per channel)
    "relu": (2, 0),               # reads x, writes y (likewise every unary op below)
    "tanh": (2, 0),
    "silu": (2, 0),
    "gelu": (2, 0),
    "swiglu": (3, 0),             # reads gate and up, writes silu(gate) * up
    "geglu": (3, 0),              # reads both halves of the projection, writes gelu(g) * u
    "softmax": (2, 0),            # reads scores, writes probabilities (the row fits on chip: one pass)
    "log_softmax": (2, 0),        # reads logits, writes log-probabilities (targets are indices)
    "dropout": (2, MASK_BYTES),   # reads x, writes y and a 1-byte mask
    "bias_dropout_add": (3, MASK_BYTES),  # reads x and the residual, writes the sum and a 1-byte mask
    "layernorm": (2, 0),          # one row per thread block: reads x once, writes y
    "rmsnorm": (2, 0),
    "groupnorm": (3, 0),          # groups of (c/32)*h*w elements: a statistics pass and a normalise pass
    "batchnorm": (3, 0),          # batch statistics over n*h*w: a statistics pass and a normalise pass
    "frozen_batchnorm": (2, 0),   # a per-channel affine map
    "rope": (2, 0),               # reads q or k, writes it rotated
    "sinusoid": (1, 0),           # writes the embedding (reads one timestep)
    "scale_add": (3, 0),          # reads the base output and the adapter output, writes their sum
    "mse": (3, 0),                # reads prediction and target, writes the difference (kept for backward)
    "l1": (2, 0),                 # reads prediction and target, sums |difference|
    "sigmoid_focal": (3, 0),      # reads logits and one-hot targets, writes the probabilities (kept)
    "gaussian_sample": (4, 0),    # reads mean, log-variance and noise, writes the sample
    "noise_mix": (3, 0),          # reads x0 and noise, writes x_t
    "gather": (2, 0),             # reads a table row, writes the output
    "copy": (2, 0),               # reads each element once, writes it once
    "upsample_nearest2x": (5, 0),  # per INPUT element: reads it once, writes 4 outputs
}


#: Kernel ops of the schema's `kernels:` list.
KERNEL_OPS = ("gemm", "conv", "attention", "elementwise")


@dataclass(frozen=True)
class Kernel:
    """One forward kernel of one sample (workloads/SCHEMA.md, "Kernels").

    `shape` holds the op's shape keys in the schema's order as (key, value) pairs; `flops` is its
    forward FLOP count from the schema's formula. `backward_factor` None means "the layer's factor"
    (make_layer stamps it); `fused` is True/False for elementwise kernels and None for the others."""

    op: str
    shape: tuple
    flops: int
    backward_factor: int = None
    fused: bool = None

    def items(self):
        """(key, value) pairs in the order the YAML writes them."""
        items = [("op", self.op)] + list(self.shape) + [("backward_factor", self.backward_factor)]
        if self.op == "elementwise":
            items.append(("fused", self.fused))
        return items

    def value(self, key):
        return dict(self.shape)[key]


def gemm_kernel(m, n, k, batch=1):
    """(m x k) by (k x n), `batch` independent products per sample: 2*m*n*k*batch FLOP."""
    assert min(m, n, k, batch) > 0
    return Kernel("gemm", (("m", m), ("n", n), ("k", k), ("batch", batch)), 2 * m * n * k * batch)


def conv_kernel(h, w, c, k, r, s, stride, pad, groups):
    """2-D convolution of one h x w x c input to k channels: 2*out_h*out_w*k*(c/groups)*r*s FLOP."""
    assert c % groups == 0 and k % groups == 0
    out_h, out_w = conv_out_size(h, r, stride, pad), conv_out_size(w, s, stride, pad)
    shape = (("h", h), ("w", w), ("c", c), ("k", k), ("r", r), ("s", s), ("stride", stride), ("pad", pad),
             ("groups", groups))
    return Kernel("conv", shape, 2 * out_h * out_w * k * (c // groups) * r * s)


def attention_kernel(heads, kv_heads, q, kv, head_dim, causal):
    """One fused attention kernel: heads * pairs * (4*head_dim + 5) FLOP (QK^T and AV, 2 MACs x head_dim
    per pair each, softmax at 5 FLOP per score)."""
    assert heads % kv_heads == 0
    pairs = attention_pairs(q, kv, causal)
    shape = (("heads", heads), ("kv_heads", kv_heads), ("q", q), ("kv", kv), ("head_dim", head_dim),
             ("causal", causal))
    return Kernel("attention", shape,
                  heads * pairs * (4 * head_dim + ELEMENTWISE_FLOP_PER_ELEMENT["softmax"]))


def elementwise_kernel(elements, flop_per_element, bytes_per_element, fused=False, backward_factor=None):
    """`elements` per sample at `flop_per_element`; `bytes_per_element` read plus written if it runs on
    its own. fused: runs inside the kernel listed just before it (no launch, no HBM traffic of its own)."""
    assert elements > 0 and flop_per_element >= 0 and bytes_per_element > 0
    shape = (("elements", elements), ("flop_per_element", flop_per_element), ("bytes_per_element", bytes_per_element))
    return Kernel("elementwise", shape, elements * flop_per_element, backward_factor, bool(fused))


@dataclass(frozen=True)
class Cost:
    """Parameters and work of one op or a fusion of ops (per sample), with the kernels that do the work."""

    params: int = 0             # weights that follow the layer's mode (trainable unless the layer is frozen)
    frozen_params: int = 0      # weights frozen regardless of mode (e.g. FrozenBatchNorm2d affine)
    macs: int = 0               # multiply-accumulates of matmuls and convolutions
    elementwise_flops: int = 0  # cheap elementwise FLOPs
    kernels: tuple = ()         # forward kernels of one sample, in launch order

    def __add__(self, other):
        return Cost(self.params + other.params, self.frozen_params + other.frozen_params,
                    self.macs + other.macs, self.elementwise_flops + other.elementwise_flops,
                    self.kernels + other.kernels)

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
    # Forward kernels of one sample in launch order, backward_factor set (Kernel); () for a layer
    # without work (unused weights).
    kernels: tuple = ()


@dataclass(frozen=True)
class Workload:
    """A whole trace: the keys of the schema's `workload:` mapping."""

    name: str
    benchmark: str          # the MLPerf benchmark the trace models; None for a trace that is none
    description: str
    precision: str
    sample: str
    optimizer: str
    layers: tuple
    # A trace that is not an MLPerf benchmark (benchmark None): the calibrated benchmark whose kernel
    # efficiencies it runs at (None: key omitted, the defaults).
    efficiency_benchmark: str = None


# ---- costs -------------------------------------------------------------------------------------

def conv_out_size(size, kernel, stride, padding):
    """Output edge of a convolution or pooling window (PyTorch Conv2d docs, 'Shape')."""
    return (size + 2 * padding - kernel) // stride + 1


def conv2d(c_in, c_out, kernel, in_h, in_w, stride=1, padding=None, groups=1, bias=False):
    """Conv2d on an in_h x in_w input (padding defaults to kernel // 2, 'same' at stride 1): weights
    c_out*(c_in/groups)*k*k; one MAC per weight per output position. Returns the cost and its one conv
    kernel; the output edges are conv_out_size(in, kernel, stride, padding)."""
    if padding is None:
        padding = kernel // 2
    weights = c_out * (c_in // groups) * kernel * kernel
    out_h, out_w = conv_out_size(in_h, kernel, stride, padding), conv_out_size(in_w, kernel, stride, padding)
    return Cost(params=weights + (c_out if bias else 0), macs=out_h * out_w * weights,
                kernels=(conv_kernel(in_h, in_w, c_in, c_out, kernel, kernel, stride, padding, groups),))


def shared_weights(cost):
    """The work of a cost without its weights: a module applied once more with the same weights
    (RetinaNet's heads run on five pyramid levels and hold their weights once)."""
    return replace(cost, params=0, frozen_params=0)


def matmul(m, n, k, batch=1):
    """`batch` products (m x k) by (k x n): m*n*k*batch MACs, one gemm kernel."""
    return Cost(macs=m * n * k * batch, kernels=(gemm_kernel(m, n, k, batch),))


def linear(tokens, d_in, d_out, bias):
    """Linear layer y = x W^T + b applied to `tokens` rows: tokens*d_in*d_out MACs, one gemm with
    m = tokens, n = d_out, k = d_in (the bias add runs in the GEMM epilogue and is not counted)."""
    return Cost(params=d_in * d_out + (d_out if bias else 0)) + matmul(tokens, d_out, d_in)


def attention_pairs(q_tokens, kv_tokens, causal):
    """Query-key pairs that are computed. Causal attention counts only the unmasked pairs,
    q(q+1)/2, which is what block-skipping kernels (FlashAttention-2, Dao 2023, Sec. 3.1) compute."""
    if causal:
        assert q_tokens == kv_tokens
        return q_tokens * (q_tokens + 1) // 2
    return q_tokens * kv_tokens


def attention_core(q_tokens, kv_tokens, heads, head_dim, causal=False, kv_heads=None, fused=True,
                   elem_bytes=None):
    """softmax(Q K^T / sqrt(d)) V without projections (Vaswani et al. 2017, eq. 1):
    QK^T and AV each cost heads*head_dim MACs per computed pair; softmax is elementwise on the scores.
    Grouped-query attention (kv_heads < heads) shares K/V heads but does not change these MACs.
    fused: one attention kernel (FlashAttention / fused MHA). Unfused: the batched gemms QK^T and AV
    around a softmax kernel (elem_bytes: the element size its traffic is counted in); not causal."""
    kv_heads = heads if kv_heads is None else kv_heads
    pairs = attention_pairs(q_tokens, kv_tokens, causal)
    softmax = ELEMENTWISE_FLOP_PER_ELEMENT["softmax"]
    if fused:
        return Cost(macs=2 * heads * head_dim * pairs, elementwise_flops=softmax * heads * pairs,
                    kernels=(attention_kernel(heads, kv_heads, q_tokens, kv_tokens, head_dim, causal),))
    assert not causal and kv_heads == heads, "unfused causal or grouped-query attention is not modelled"
    return (matmul(q_tokens, kv_tokens, head_dim, batch=heads)                   # scores = Q K^T
            + elementwise("softmax", heads * q_tokens * kv_tokens, elem_bytes)
            + matmul(q_tokens, head_dim, kv_tokens, batch=heads))                # context = P V


def elementwise(op, elements, elem_bytes, fused=False, backward_factor=None):
    """One elementwise kernel of `op` over `elements` values: FLOPs from ELEMENTWISE_FLOP_PER_ELEMENT,
    traffic from ELEMENTWISE_TRAFFIC at `elem_bytes` per element of a tensor. fused: it runs inside
    the kernel listed just before it."""
    tensors, extra = ELEMENTWISE_TRAFFIC[op]
    flop = ELEMENTWISE_FLOP_PER_ELEMENT[op]
    return Cost(elementwise_flops=flop * elements,
                kernels=(elementwise_kernel(elements, flop, tensors * elem_bytes + extra, fused, backward_factor),))


def elementwise_op(elements, flop_per_element, bytes_per_element, fused=False):
    """An elementwise kernel whose FLOP and traffic the caller states (pooling windows)."""
    return Cost(elementwise_flops=flop_per_element * elements,
                kernels=(elementwise_kernel(elements, flop_per_element, bytes_per_element, fused),))


def data_movement(op, elements, elem_bytes):
    """A kernel that only moves data (gather, copy, upsampling): 0 FLOP. Its backward is one pass of
    the same size (the gradient scattered, summed or split back), so its backward_factor is 1 (0 in a
    forward-only layer); with 0 FLOP this does not enter the backward FLOPs."""
    assert ELEMENTWISE_FLOP_PER_ELEMENT[op] == 0, op
    return elementwise(op, elements, elem_bytes, backward_factor=1)


def norm(op, elements, channels, elem_bytes, fused=False):
    """Normalisation over `elements` values with per-channel affine weights."""
    cost = elementwise(op, elements, elem_bytes, fused)
    if op == "rmsnorm":
        return Cost(params=channels) + cost
    if op == "frozen_batchnorm":
        return Cost(frozen_params=2 * channels) + cost
    return Cost(params=2 * channels) + cost


def embedding(rows, dim, tokens=0, elem_bytes=None):
    """A lookup table: rows*dim weights, no MACs. With `tokens`, the lookup of that many rows: a gather
    kernel of tokens*dim elements (reads the row, writes the output), 0 FLOP."""
    cost = Cost(params=rows * dim)
    if tokens:
        cost = cost + data_movement("gather", tokens * dim, elem_bytes)
    return cost


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


def stamp_kernels(name, kernels, factor, forward, backward):
    """The kernels with their backward_factor set: the layer's `factor` where a kernel sets none, 0 for
    all in a layer without backward (factor 0). Checks the schema's identities: sum of kernel FLOPs ==
    forward, sum of factor x kernel FLOPs == backward; fused kernels never come first."""
    stamped = tuple(replace(k, backward_factor=(0 if factor == 0 else
                                                factor if k.backward_factor is None else k.backward_factor))
                    for k in kernels)
    assert sum(k.flops for k in stamped) == forward, name
    assert sum(k.backward_factor * k.flops for k in stamped) == backward, name
    assert not stamped or not stamped[0].fused, name
    assert all(k.op in KERNEL_OPS and k.backward_factor in (0, 1, 2) for k in stamped), name
    return stamped


def make_layer(name, kind, cost, mode, activation_bytes, recomputed):
    """Turn a Cost into a Layer, applying the backward rule and the mode's parameter split."""
    assert kind in KINDS and kind != "lora_linear", kind
    assert mode in MODES, mode
    if mode == TRAINABLE:
        trainable, frozen = cost.params, cost.frozen_params
    else:
        trainable, frozen = 0, cost.params + cost.frozen_params
    forward = cost.forward_flops
    factor = backward_factor(kind, mode, cost)
    return Layer(name=name, kind=kind, trainable_params=trainable, frozen_params=frozen,
                 forward_flops=forward, backward_flops=factor * forward,
                 activation_bytes=activation_bytes, recomputed=recomputed, matmul_flops=2 * cost.macs,
                 kernels=stamp_kernels(name, cost.kernels, factor, forward, factor * forward))


def lora_adapter(tokens, d_in, d_out, rank, elem_bytes):
    """LoRA path dropout(x) A^T B^T * (alpha/r) (Hu et al. 2021, eq. 3; PEFT LoraLayer.forward):
    r*(d_in+d_out) trainable weights, dropout on the input, scale-and-add on the output.
    Kernels (PEFT runs them one by one): dropout, lora_A, lora_B, scale-and-add into the base output;
    all with backward_factor 2 (the adapter's weights train)."""
    cost = (elementwise("dropout", tokens * d_in, elem_bytes)                       # dropout(x), d_in wide
            + Cost(params=rank * (d_in + d_out))
            + matmul(tokens, rank, d_in)                                            # lora_A: d_in -> r
            + matmul(tokens, d_out, rank)                                           # lora_B: r -> d_out
            + elementwise("scale_add", tokens * d_out, elem_bytes))                 # y += (alpha/r) * z
    return replace(cost, kernels=tuple(replace(k, backward_factor=2) for k in cost.kernels))


def lora_linear_layer(name, tokens, d_in, d_out, rank, activation_bytes, recomputed, elem_bytes):
    """A frozen bias-free linear layer with a trainable LoRA adapter. Backward = 1x the base
    forward (input gradient through frozen weights) + 2x the adapter forward (its weights train).
    Kernels: the base gemm (backward_factor 1), then the adapter's (2)."""
    base = linear(tokens, d_in, d_out, bias=False)
    adapter = lora_adapter(tokens, d_in, d_out, rank, elem_bytes)
    forward = base.forward_flops + adapter.forward_flops
    backward = base.forward_flops + 2 * adapter.forward_flops
    kernels = tuple(replace(k, backward_factor=1) for k in base.kernels) + adapter.kernels
    return Layer(name=name, kind="lora_linear", trainable_params=adapter.params, frozen_params=base.params,
                 forward_flops=forward, backward_flops=backward,
                 activation_bytes=activation_bytes, recomputed=recomputed,
                 matmul_flops=2 * (base.macs + adapter.macs),
                 kernels=stamp_kernels(name, kernels, 1, forward, backward))


def tied_linear_layer(name, tokens, d_in, d_out, activation_bytes, recomputed):
    """A bias-free linear layer whose weight belongs to another layer (Megatron's GPT output layer reuses
    the word embedding): no parameters of its own (tied weights are counted once, at their owner), but the
    weight trains, so the backward is 2x the forward: the input gradient plus the weight gradient that is
    added to the shared weight's. One gemm kernel, m = tokens, n = d_out, k = d_in."""
    cost = matmul(tokens, d_out, d_in)
    forward = cost.forward_flops
    return Layer(name=name, kind="linear", trainable_params=0, frozen_params=0, forward_flops=forward,
                 backward_flops=2 * forward, activation_bytes=activation_bytes, recomputed=recomputed,
                 matmul_flops=2 * cost.macs, kernels=stamp_kernels(name, cost.kernels, 2, forward, 2 * forward))


def unused_weights_layer(name, frozen_params):
    """Weights that are loaded (and occupy memory) but take no part in the training step: no kernels."""
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
    """Element size of activations kept at the training precision. The 4-bit formats count their block
    scales (model::format_bytes): NVFP4 one E4M3 byte per 16 values, MXFP4 one E8M0 byte per 32."""
    return {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1,
            "nvfp4": 0.5 + 1 / 16, "mxfp4": 0.5 + 1 / 32}[precision]
