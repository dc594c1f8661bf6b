"""Llama 3.1 8B and 405B pre-training (all weights trainable), at the kernel efficiencies of MLPerf's
`llama2_70b_lora`.

Architecture: Dubey et al. 2024, "The Llama 3 Herd of Models" (arXiv 2407.21783), Sec. 3.2 and Table 3:
dense decoder-only transformer, pre-RMSNorm, SwiGLU, rotary embeddings (theta 500,000), grouped-query
attention with 8 key-value heads; 8B: 32 layers, model dimension 4096, FFN dimension 14336, 32 heads;
405B: 126 layers, 16384, 53248, 128 heads. Sizes as the Hugging Face configs of meta-llama/Llama-3.1-8B
and meta-llama/Llama-3.1-405B give them: head_dim 128, vocab_size 128256 (Table 3's "128,000" is the
BPE vocabulary; the embedding has 256 more rows for special tokens), tie_word_embeddings false, no
biases, no dropout (attention_dropout 0.0).
Pre-training setup: sequences of 8192 tokens (Sec. 3.4.1: the 405B model trains on 8,192-token
sequences after its first 252M tokens; the later long-context stage is not modelled), bf16, AdamW.
The paper's attention mask keeps documents packed into one sequence from attending to each other; the
trace counts every causal pair of the sequence (an upper bound for packed data).
Layer layout and kernels: those of llama2.py (the MLPerf `llama2_70b_lora` trace, whose calibrated
kernel efficiencies these traces run at through `efficiency_benchmark`): a fused q/k/v projection,
separate gate and up projections, RoPE on Q and K as a kernel before one causal FlashAttention kernel
(the query heads sharing the 8 KV heads), and RMSNorm, the residual adds and SwiGLU as kernels of their
own. What differs from the LoRA trace is that every weight trains: each linear layer takes 2x its
forward in backward and the tensors its weight gradient needs are kept (the norm outputs, the SwiGLU
output), and the token embedding trains (its gather has a backward).
Tensor/context parallelism: Megatron-LM's GPT layout (Shoeybi et al. 2019, Sec. 3) on the decoder
layers, as in llama2.py; the token embedding, the lm_head and the loss are vocabulary-parallel as
Megatron trains them (Shoeybi et al. 2019, Sec. 3: VocabParallelEmbedding, whose partial lookups are
all-reduced in forward like a row-parallel layer's output; the lm_head column-parallel over the
vocabulary, its input gradient all-reduced in backward; vocab_parallel_cross_entropy on each rank's
logits, whose two all-reduces of one value per token are left out); the final norm stays replicated.
The degree must divide the 8 KV heads.
Activation checkpointing: every decoder layer is a checkpoint block; its layers are `recomputed: true`
except the block-output residual add.
"""

from collections import namedtuple

from building_blocks import (FP32_BYTES, TRAINABLE, Workload, attention_core, bytes_per_element, column_parallel,
                             context_parallel_kv, elementwise, embedding, linear, make_layer, norm, row_parallel)

#: The hyper-parameters of one Llama 3.1 model (Dubey et al. 2024, Table 3; Hugging Face config).
LlamaConfig = namedtuple("LlamaConfig", "name size layers hidden heads kv_heads head_dim intermediate vocab seq_len")

LLAMA31_8B = LlamaConfig(name="llama31-8b", size="8B", layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128,
                         intermediate=14336, vocab=128256, seq_len=8192)
LLAMA31_405B = LlamaConfig(name="llama31-405b", size="405B", layers=126, hidden=16384, heads=128, kv_heads=8,
                           head_dim=128, intermediate=53248, vocab=128256, seq_len=8192)

#: The calibrated MLPerf benchmark whose kernel efficiencies these traces run at.
EFFICIENCY_BENCHMARK = "llama2_70b_lora"


def decoder_layer(config, prefix, s, b):
    """One pre-RMSNorm decoder layer with trainable weights. Activations (producer convention, bytes per
    sequence): the input norm's output (the q/k/v weight gradient's input), Q/K/V after the projection
    (RoPE is linear, FlashAttention's backward reads them), the attention output and fp32 log-sum-exp,
    the attention residual (the second norm's input), the second norm's output (gate/up's input), the
    SwiGLU inputs and output (down's input) and the layer output."""
    h, f = config.hidden, config.intermediate
    kv = config.kv_heads * config.head_dim
    qkv_out = config.heads * config.head_dim + 2 * kv
    x = s * h * b   # the sub-block input (gradient all-reduced in backward) and output (all-reduced in forward)
    L = lambda name, kind, cost, saved, rec=True: make_layer(prefix + name, kind, cost, TRAINABLE, saved, rec)
    E = lambda op, elements: elementwise(op, elements, b)
    return [
        L("input-norm", "norm", norm("rmsnorm", s * h, h, b), s * h * b),                      # q/k/v input
        # fused q/k/v (split by query groups under TP): keeps Q, K, V for FlashAttention's backward
        column_parallel(L("self-attn.qkv-proj", "linear", linear(s, h, qkv_out, bias=False), s * qkv_out * b), x),
        # RoPE on Q and K, then causal FlashAttention: keeps the output O (o_proj's input) and the fp32
        # log-sum-exp per head and query (Dao 2023, Alg. 1)
        context_parallel_kv(column_parallel(
            L("self-attn.core", "attention",
              E("rope", s * (config.heads * config.head_dim + kv))
              + attention_core(s, s, config.heads, config.head_dim, causal=True, kv_heads=config.kv_heads),
              s * config.heads * config.head_dim * b + config.heads * s * FP32_BYTES)),
            s, config.kv_heads, config.head_dim, b),
        row_parallel(L("self-attn.o-proj", "linear", linear(s, config.heads * config.head_dim, h, bias=False), 0), x),
        L("attn-residual", "elementwise", E("add", s * h), s * h * b),                          # RMSNorm input
        L("post-attention-norm", "norm", norm("rmsnorm", s * h, h, b), s * h * b),              # gate/up input
        # gate and up share the input: one backward all-reduce of the summed input gradient
        column_parallel(L("mlp.gate-proj", "linear", linear(s, h, f, bias=False), s * f * b), x),  # SwiGLU input
        column_parallel(L("mlp.up-proj", "linear", linear(s, h, f, bias=False), s * f * b)),       # SwiGLU input
        column_parallel(L("mlp.act", "activation", E("swiglu", s * f), s * f * b)),                # down input
        row_parallel(L("mlp.down-proj", "linear", linear(s, f, h, bias=False), 0), x),
        # the layer output: next layer's input and the checkpoint boundary
        L("mlp-residual", "elementwise", E("add", s * h), s * h * b, rec=False),
    ]


def llama31(config):
    """The pre-training trace of one Llama 3.1 model."""
    precision = "bf16"
    b = bytes_per_element(precision)
    s, h, v = config.seq_len, config.hidden, config.vocab
    L = lambda name, kind, cost, saved: make_layer(name, kind, cost, TRAINABLE, saved, recomputed=False)
    # Token embedding: trainable (its gradient is scattered into the looked-up rows); the output is kept
    # for layer 0's backward.
    x = s * h * b  # the hidden state: the embedding's forward all-reduce, the lm_head's backward one
    layers = [row_parallel(L("embed-tokens", "embedding", embedding(v, h, s, b), s * h * b), x)]
    for i in range(config.layers):
        layers += decoder_layer(config, "layers.%d." % i, s, b)
    layers += [
        L("norm", "norm", norm("rmsnorm", s * h, h, b), s * h * b),                     # lm_head's input
        column_parallel(L("lm-head", "linear", linear(s, h, v, bias=False), 0), x),     # untied
        # cross-entropy over every position keeps the log-probabilities (each rank its vocabulary share)
        column_parallel(L("loss", "loss", elementwise("log_softmax", s * v, b), s * v * b)),
    ]
    return Workload(
        name=config.name, benchmark=None, efficiency_benchmark=EFFICIENCY_BENCHMARK,
        description=("Llama 3.1 %s pre-training on %d-token sequences: %d layers, hidden %d, %d heads with %d KV heads "
                     "(head dim %d), SwiGLU %d, vocab %d, untied lm_head; every weight trainable; causal "
                     "FlashAttention counting unmasked query-key pairs only; bf16; kernels as the llama2_70b_lora "
                     "trace, whose calibrated efficiencies it runs at."
                     % (config.size, s, config.layers, h, config.heads, config.kv_heads, config.head_dim,
                        config.intermediate, v)),
        precision=precision, sample="sequence", optimizer="adam", layers=tuple(layers))


def llama31_8b():
    return llama31(LLAMA31_8B)


def llama31_405b():
    return llama31(LLAMA31_405B)
