"""Llama 2 70B fine-tuned with LoRA (MLPerf Training `llama2_70b_lora`).

Architecture: Touvron et al. 2023, "Llama 2", Sec. 2.2 and Table 1 (70B: grouped-query attention,
pre-RMSNorm, SwiGLU, rotary embeddings, 4k context in pre-training); sizes from the Hugging Face
config of meta-llama/Llama-2-70b-hf: hidden 8192, 80 layers, 64 heads, 8 key-value heads,
intermediate 28672, vocab 32000, untied lm_head.
Fine-tuning setup: MLPerf Training reference llama2_70b_lora (run_llama_70B_scrolls_r16.sh and
scripts/train.py): max_seq_len 8192, LoRA r=16, alpha=32, dropout 0.1 on target modules
"qkv_proj,o_proj" of a checkpoint whose q/k/v projections are fused into one qkv_proj
(regisss/llama2-70b-fused-qkv-mlperf), bf16, gradient checkpointing, FlashAttention (--use_flash_attn),
AdamW. Hu et al. 2021, "LoRA", Sec. 4: an adapter on W (d_out x d_in) has r*(d_in + d_out) weights.
The base model is frozen; gradients still flow through every decoder layer to reach the adapters
of the lower layers (Hugging Face's enable_input_require_grads makes them reach layer 0's input).
Tensor/context parallelism: Megatron-LM's GPT layout (Shoeybi et al. 2019, Sec. 3) on the decoder
layers, LoRA adapters following their base layer; the token embedding, final norm, lm_head and loss
stay replicated (workloads/SCHEMA.md).
Kernels: attention is one causal FlashAttention kernel (the reference's --use_flash_attn; NVIDIA's NeMo
submissions use cuDNN/TransformerEngine fused attention) with the 64 query heads sharing 8 KV heads;
RoPE on Q and K is a kernel before it. Nothing else is marked fused: RMSNorm, the residual adds,
SwiGLU and the LoRA dropout and scale-and-add are kernels of their own (unsure which of them the
submissions fuse).
"""

from building_blocks import (FORWARD_ONLY, FP32_BYTES, FROZEN, MASK_BYTES, Workload, attention_core,
                             bytes_per_element, column_parallel, context_parallel_kv, elementwise, embedding, linear,
                             lora_linear_layer, make_layer, norm, row_parallel)

LAYERS = 80
HIDDEN = 8192
HEADS = 64
KV_HEADS = 8
HEAD_DIM = HIDDEN // HEADS
INTERMEDIATE = 28672
VOCAB = 32000
SEQ_LEN = 8192
LORA_RANK = 16

#: LoRA targets as (name, d_in, d_out): the fused q/k/v projection and the output projection.
LORA_TARGETS = (("self-attn.qkv-proj", HIDDEN, HIDDEN + 2 * KV_HEADS * HEAD_DIM),
                ("self-attn.o-proj", HIDDEN, HIDDEN))


def lora_saved_bytes(s, d_in, b):
    """What a LoRA adapter keeps: dropout mask and dropout output (lora_A's weight-gradient input),
    lora_A output (lora_B's weight-gradient input). The frozen base weight needs no input."""
    return s * d_in * (MASK_BYTES + b) + s * LORA_RANK * b


def decoder_layer(prefix, s, b):
    """One pre-RMSNorm decoder layer. Tensor parallelism as Megatron-LM's GPT: the fused QKV (split by
    query groups, so the degree must divide the 8 KV heads), the attention core, gate/up and SwiGLU are
    column-parallel, o_proj and down_proj row-parallel. The LoRA adapters follow their base layer with
    every adapter weight split t ways (t must divide the rank 16): on qkv_proj (column) lora_A is split
    along the rank and sees the replicated input, its s x r output is all-gathered, lora_B is split with
    the base output; on o_proj (row) lora_A is split with the base input, its partial s x r output is
    reduce-scattered over the rank, and lora_B, split along the rank, adds a partial output that the
    base layer's all-reduce sums. The s*r adapter collectives (r/h = 0.2 % of the s*h all-reduce) are
    not in tp_comm_bytes_per_sample; qkv's LoRA dropout acts on the replicated input and stays whole."""
    h, kv, f = HIDDEN, KV_HEADS * HEAD_DIM, INTERMEDIATE
    (qkv_name, qkv_in, qkv_out), (o_name, o_in, o_out) = LORA_TARGETS
    x = s * h * b   # the sub-block input (gradient all-reduced in backward) and output (all-reduced in forward)
    L = lambda name, kind, cost, saved, rec=True: make_layer(prefix + name, kind, cost, FROZEN, saved, rec)
    E = lambda op, elements: elementwise(op, elements, b)
    return [
        # RMSNorm's output is not kept: the frozen base needs none and LoRA keeps its own dropout output.
        L("input-norm", "norm", norm("rmsnorm", s * h, h, b), 0),
        # keeps the LoRA tensors and the rotated Q, K and V for FlashAttention's backward
        column_parallel(lora_linear_layer(prefix + qkv_name, s, qkv_in, qkv_out, LORA_RANK,
                                          lora_saved_bytes(s, qkv_in, b) + s * qkv_out * b, recomputed=True,
                                          elem_bytes=b), x),
        # RoPE on Q and K, then causal FlashAttention: keeps output O and the fp32 log-sum-exp per head
        # and query (Dao 2023, Alg. 1)
        context_parallel_kv(column_parallel(
            L("self-attn.core", "attention",
              E("rope", s * (h + kv)) + attention_core(s, s, HEADS, HEAD_DIM, causal=True, kv_heads=KV_HEADS),
              s * h * b + HEADS * s * FP32_BYTES)), s, KV_HEADS, HEAD_DIM, b),
        row_parallel(lora_linear_layer(prefix + o_name, s, o_in, o_out, LORA_RANK, lora_saved_bytes(s, o_in, b),
                                       recomputed=True, elem_bytes=b), x),
        L("attn-residual", "elementwise", E("add", s * h), s * h * b),                 # RMSNorm input
        L("post-attention-norm", "norm", norm("rmsnorm", s * h, h, b), 0),
        # gate and up share the input: one backward all-reduce of the summed input gradient (Megatron
        # fuses them into linear_fc1)
        column_parallel(L("mlp.gate-proj", "linear", linear(s, h, f, bias=False), s * f * b), x),  # SwiGLU input
        column_parallel(L("mlp.up-proj", "linear", linear(s, h, f, bias=False), s * f * b)),       # SwiGLU input
        column_parallel(L("mlp.act", "activation", E("swiglu", s * f), 0)),  # frozen down-proj needs none
        row_parallel(L("mlp.down-proj", "linear", linear(s, f, h, bias=False), 0), x),
        # the layer output: next layer's input and the checkpoint boundary
        L("mlp-residual", "elementwise", E("add", s * h), s * h * b, rec=False),
    ]


def llama2_70b_lora():
    precision = "bf16"
    b = bytes_per_element(precision)
    s, h = SEQ_LEN, HIDDEN
    # Token embeddings: frozen with nothing trainable upstream; the output is kept for layer 0's backward.
    # Its gather is a kernel of 0 FLOP (the layer has kernels although it has no FLOPs).
    layers = [make_layer("embed-tokens", "embedding", embedding(VOCAB, h, s, b), FORWARD_ONLY, s * h * b, False)]
    for i in range(LAYERS):
        layers += decoder_layer("layers.%d." % i, s, b)
    layers += [
        make_layer("norm", "norm", norm("rmsnorm", s * h, h, b), FROZEN, 0, False),
        make_layer("lm-head", "linear", linear(s, h, VOCAB, bias=False), FROZEN, 0, False),
        # cross-entropy over every position keeps the log-probabilities
        make_layer("loss", "loss", elementwise("log_softmax", s * VOCAB, b), FROZEN, s * VOCAB * b, False),
    ]
    return Workload(
        name="llama2-70b-lora", benchmark="llama2_70b_lora",
        description=("Llama 2 70B LoRA fine-tuning on 8192-token sequences: 80 layers, hidden 8192, 64 heads with "
                     "8 KV heads, SwiGLU 28672, vocab 32000; frozen base, LoRA r=16 on the fused qkv_proj and "
                     "o_proj (MLPerf reference); causal FlashAttention counting unmasked query-key pairs only; "
                     "bf16 (fp8 on Hopper and later is a per-platform choice)."),
        precision=precision, sample="sequence", optimizer="adam", layers=tuple(layers))
