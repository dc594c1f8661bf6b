"""GPT pre-training as Megatron-LM runs it: GPT-3 175B and the GPT family of Megatron-LM's weak-scaling
table, at the kernel efficiencies of MLPerf's `llama2_70b_lora`.

Sources:
* GPT-3 175B: Brown et al. 2020, "Language Models are Few-Shot Learners" (arXiv 2005.14165), Sec. 2.1
  and Table 2.1: 96 layers, d_model 12288, 96 heads of 128, d_ff = 4 d_model, context 2048 tokens, the
  GPT-2 architecture with pre-LayerNorm. The paper's alternating dense and locally banded sparse
  attention is not modelled: every layer runs dense causal attention, as Megatron-LM's GPT does.
* The family: Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using
  Megatron-LM" (SC21, arXiv 2104.04473), Table 1 (weak scaling, 1.7B to 1008B; heads, hidden size and
  layers per row), vocabulary 51,200 and sequence length 2048 for every model (Sec. 5.1), and eq. (2),
  their parameter count P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), which paper_parameter_count
  evaluates for comparison (generate_workloads.py --summary).
* The model: Megatron-LM's GPT (megatron/model/gpt_model.py and transformer.py; Megatron-Core's GPTModel):
  learned word and position embeddings added, embedding dropout, pre-LN layers of LayerNorm -> fused
  q/k/v linear with bias -> causal self-attention -> output linear with bias -> bias + dropout + residual
  add, LayerNorm -> linear h -> 4h with bias -> GeLU -> linear 4h -> h with bias -> bias + dropout +
  residual add; a final LayerNorm; the output layer reuses the word-embedding weight (Megatron's default
  share_embeddings_and_output_weights), so its parameters are counted once, at the embedding.
  Dropout 0.1 on the hidden states and on the attention probabilities (Megatron's defaults
  --hidden-dropout and --attention-dropout; NeMo's gpt3/175b.yaml hidden_dropout 0.1).
* Vocabulary: GPT-2's BPE has 50,257 tokens; Megatron pads the embedding to a multiple of
  make_vocab_size_divisible_by (128) x the tensor-parallel size, so at tp 8 to 51,200 = 50 x 1024, the
  size Narayanan et al. use for every model. The GPT-3 trace takes the same padded 51,200.
Precision bf16, optimizer Adam (Megatron's default; GPT-3 Sec. 2.1/Appendix B: Adam). One sample is one
2048-token sequence.
Kernels: one causal FlashAttention kernel per layer (Megatron's --use-flash-attn; TransformerEngine's
fused attention), the attention dropout inside it (FlashAttention regenerates its mask in backward from
the RNG state: no mask is kept); LayerNorm and GeLU as kernels of their own; each sub-block's dropout and
residual add one bias_dropout_add kernel, as Megatron runs them (bias_dropout_add_fused_train, Narayanan
et al. 2021 sec. 4.2: "fused operators"; the BERT trace's kernel). Biases are added in the GEMM epilogue
and are not counted (building_blocks.linear).
Tensor/context parallelism: Megatron-LM's layout (Shoeybi et al. 2019, Sec. 3): q/k/v, attention core,
fc1 and GeLU column-parallel, the attention output and fc2 row-parallel; the word embedding, the
output layer and the loss vocabulary-parallel as Megatron trains them (VocabParallelEmbedding: partial
lookups all-reduced in forward, like a row-parallel layer's output; the tied output layer
column-parallel over the vocabulary, its input gradient all-reduced in backward;
vocab_parallel_cross_entropy, whose two all-reduces of one value per token are left out); the position
embedding's add and dropout split with the word embedding, the final LayerNorm replicated. With this layout the activations of one layer
reproduce Korthikanti et al. 2022, eq. (1), with FlashAttention in place of the 5as^2 term of stored
attention probabilities: 34sh bytes plus the fp32 log-sum-exp.
Activation checkpointing: every transformer layer is a checkpoint block; its layers are
`recomputed: true` except the block-output residual add.
"""

from collections import namedtuple

from building_blocks import (FP32_BYTES, MASK_BYTES, TRAINABLE, Workload, attention_core, attention_pairs,
                             bytes_per_element, column_parallel, context_parallel_kv, elementwise, embedding, linear,
                             make_layer, norm, row_parallel, tied_linear_layer)

#: Megatron-LM's GPT vocabulary: GPT-2's 50,257 BPE tokens padded to a multiple of 128 x tp (tp 8: 1024).
GPT2_VOCAB = 50257
VOCAB_PADDING_MULTIPLE = 128 * 8
SEQ_LEN = 2048
#: Dropout probability of the hidden states and of the attention probabilities (Megatron's default).
DROPOUT = 0.1
#: The calibrated MLPerf benchmark whose kernel efficiencies these traces run at.
EFFICIENCY_BENCHMARK = "llama2_70b_lora"
#: Sub-folder of workloads/ that holds the traces of Narayanan et al.'s Table 1.
MEGATRON_GPT_FOLDER = "megatron-gpt"

GptConfig = namedtuple("GptConfig", "name title layers hidden heads")

#: Brown et al. 2020, Table 2.1: GPT-3 175B.
GPT3_175B = GptConfig(name="gpt3-175b", title="GPT-3 175B", layers=96, hidden=12288, heads=96)

#: Narayanan et al. 2021, Table 1, as (the row's number of parameters in billions as printed, attention
#: heads, hidden size, layers). The printed number names the trace (gpt-<number>b, without a trailing
#: ".0"); the trace's parameters come from the other three.
MEGATRON_TABLE_1 = (
    ("1.7", 24, 2304, 24),
    ("3.6", 32, 3072, 30),
    ("7.5", 32, 4096, 36),
    ("18.4", 48, 6144, 40),
    ("39.1", 64, 8192, 48),
    ("76.1", 80, 10240, 60),
    ("145.6", 96, 12288, 80),
    ("310.1", 128, 16384, 96),
    ("529.6", 128, 20480, 105),
    ("1008.0", 160, 25600, 128),
)


def padded_vocab(vocab=GPT2_VOCAB, multiple=VOCAB_PADDING_MULTIPLE):
    """Megatron's _vocab_size_with_padding: the vocabulary rounded up to a multiple of `multiple`."""
    return -(-vocab // multiple) * multiple


def megatron_config(label, heads, hidden, layers):
    """The configuration of one Table 1 row (label: its parameters in billions as printed)."""
    short = label[:-2] if label.endswith(".0") else label
    return GptConfig(name="gpt-%sb" % short, title="Megatron-LM GPT %sB" % short, layers=layers, hidden=hidden,
                     heads=heads)


MEGATRON_GPT_CONFIGS = tuple(megatron_config(*row) for row in MEGATRON_TABLE_1)


def paper_parameter_count(layers, hidden, vocab=None, seq_len=SEQ_LEN):
    """Narayanan et al. 2021, eq. (2): P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), in integers:
    12 l h^2 + 13 l h + (V + s) h (it leaves out the final LayerNorm's 2h)."""
    vocab = padded_vocab() if vocab is None else vocab
    return 12 * layers * hidden ** 2 + 13 * layers * hidden + (vocab + seq_len) * hidden


def paper_forward_flops(layers, hidden, vocab=None, seq_len=SEQ_LEN):
    """Narayanan et al. 2021, eq. (3) for one sequence, divided by its 4 passes (forward, recomputed
    forward, backward = 2 forward): 24 s l h^2 (1 + s/(6h) + V/(16 l h)) = GEMM FLOPs of the layers with all
    s^2 query-key pairs, plus the output layer."""
    vocab = padded_vocab() if vocab is None else vocab
    s, l, h = seq_len, layers, hidden
    return 24 * s * l * h * h + 4 * l * s * s * h + 2 * s * h * vocab


def transformer_layer(config, prefix, s, b):
    """One pre-LN Megatron GPT layer with trainable weights (module docstring). Activations (producer
    convention, per sequence, Korthikanti et al. 2022, Sec. 4.1): LayerNorm outputs 2sh each (the q/k/v
    and fc1 inputs), Q/K/V 6sh, the attention output 2sh plus the fp32 log-sum-exp, two dropout masks sh
    each, the attention residual 2sh (the second LayerNorm's input), the GeLU input and output 8sh each
    and the layer output 2sh: 34sh + 4as bytes."""
    h, a = config.hidden, config.heads
    d = h // a
    f = 4 * h
    m = MASK_BYTES
    x = s * h * b   # the sub-block input (gradient all-reduced in backward) and output (all-reduced in forward)
    L = lambda name, kind, cost, saved, rec=True: make_layer(prefix + name, kind, cost, TRAINABLE, saved, rec)
    E = lambda op, elements, fused=False: elementwise(op, elements, b, fused)
    return [
        L("input-layernorm", "norm", norm("layernorm", s * h, h, b), s * h * b),                  # q/k/v input
        column_parallel(L("self-attention.qkv", "linear", linear(s, h, 3 * h, bias=True), 3 * s * h * b), x),
        # causal FlashAttention with the attention dropout inside: keeps the output O (the output linear's
        # input) and the fp32 log-sum-exp per head and query; the dropout mask is regenerated in backward
        context_parallel_kv(column_parallel(
            L("self-attention.core", "attention",
              attention_core(s, s, a, d, causal=True)
              + E("dropout", a * attention_pairs(s, s, causal=True), fused=True),
              s * h * b + a * s * FP32_BYTES)), s, a, d, b),
        row_parallel(L("self-attention.dense", "linear", linear(s, h, h, bias=True), 0), x),
        # Megatron's bias + dropout + residual add is one kernel (bias_dropout_add_fused_train; Narayanan
        # et al. 2021, sec. 4.2 "fused operators"): keeps its mask and the sum (the LayerNorm's input)
        L("self-attention.bias-dropout-add", "elementwise", E("bias_dropout_add", s * h), s * h * (m + b)),
        L("post-attention-layernorm", "norm", norm("layernorm", s * h, h, b), s * h * b),         # fc1 input
        column_parallel(L("mlp.fc1", "linear", linear(s, h, f, bias=True), s * f * b), x),        # GeLU input
        column_parallel(L("mlp.act", "activation", E("gelu", s * f), s * f * b)),                 # fc2 input
        row_parallel(L("mlp.fc2", "linear", linear(s, f, h, bias=True), 0), x),
        # the same kernel; its sum is the layer output: next layer's input and the checkpoint boundary
        L("mlp.bias-dropout-add", "elementwise", E("bias_dropout_add", s * h), s * h * (m + b), rec=False),
    ]


def gpt(config, description_source):
    """The pre-training trace of one GPT model of Megatron-LM's layout."""
    precision = "bf16"
    b = bytes_per_element(precision)
    s, h, v = SEQ_LEN, config.hidden, padded_vocab()
    m = MASK_BYTES
    L = lambda name, kind, cost, saved: make_layer(name, kind, cost, TRAINABLE, saved, recomputed=False)
    E = lambda op, elements: elementwise(op, elements, b)
    layers = [
        # word + position lookups, their sum and the embedding dropout: keeps the mask and the output
        # (layer 0's input)
        row_parallel(L("embedding", "embedding",
                       embedding(v, h, s, b) + embedding(s, h, s, b) + E("add", s * h) + E("dropout", s * h),
                       s * h * (m + b)), s * h * b),
    ]
    for i in range(config.layers):
        layers += transformer_layer(config, "layers.%d." % i, s, b)
    layers += [
        L("final-layernorm", "norm", norm("layernorm", s * h, h, b), s * h * b),       # output layer's input
        # logits with the word-embedding weight (tied: its parameters are the embedding's)
        column_parallel(tied_linear_layer("output-layer", s, h, v, 0, recomputed=False), s * h * b),
        # cross-entropy over every position keeps the log-probabilities (each rank its vocabulary share)
        column_parallel(L("loss", "loss", E("log_softmax", s * v), s * v * b)),
    ]
    return Workload(
        name=config.name, benchmark=None, efficiency_benchmark=EFFICIENCY_BENCHMARK,
        description=("%s pre-training on %d-token sequences (%s): %d pre-LN layers, hidden %d, %d heads, GeLU FFN %d, "
                     "learned positions, vocab %d (GPT-2's %d padded by Megatron), output layer tied to the word "
                     "embedding; dropout %.1f; every weight trainable; causal FlashAttention counting unmasked "
                     "query-key pairs only; bf16; bias + dropout + residual add one kernel as Megatron's; runs at the "
                     "calibrated efficiencies of llama2_70b_lora."
                     % (config.title, s, description_source, config.layers, h, config.heads, 4 * h, v, GPT2_VOCAB,
                        DROPOUT)),
        precision=precision, sample="sequence", optimizer="adam", layers=tuple(layers))


def gpt3_175b():
    return gpt(GPT3_175B, "Brown et al. 2020, Table 2.1, as Megatron-LM's GPT")


def megatron_gpt(config):
    """One row of Narayanan et al. 2021, Table 1."""
    return gpt(config, "Narayanan et al. 2021, Table 1")
