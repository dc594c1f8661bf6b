"""BERT-large pre-training (MLPerf Training `bert`).

Hyper-parameters: MLPerf Training reference language_model/tensorflow/bert, bert_config.json
(= Google's uncased_L-24_H-1024_A-16 config): 24 layers, hidden 1024, 16 heads, intermediate 4096,
GELU, vocab 30522, max position 512, type vocab 2, hidden and attention dropout 0.1;
max_seq_length 512 and max_predictions_per_seq 76 from the reference's run_pretraining flags.
Architecture: Devlin et al. 2019, Sec. 3 and Appendix A (post-LN encoder, MLM + NSP heads, the MLM
output projection tied to the word embeddings; Hugging Face BertForPreTraining has the same layout).
Optimizer: LAMB (You et al. 2020), the MLPerf reference optimizer.
Tensor/context parallelism: Megatron-LM's BERT layout (Shoeybi et al. 2019, Sec. 3) on the encoder
layers; embeddings, pooler, NSP and MLM heads stay replicated (workloads/SCHEMA.md).
Kernels: NVIDIA's MLPerf BERT submissions (PyTorch) run fused multi-head attention (apex fmha) for
sequences up to 512: one `attention` kernel per layer with the attention dropout inside it; fmha
returns the dropout-masked probabilities for its backward, so the kept 5as^2 bytes stay as they are.
The same submissions fuse the bias + GELU of the FFN up-projection into its GEMM (cuBLASLt's GELU_AUX
epilogue, which also stores the pre-activation for the backward: apex `FusedDenseGeluDense`, the
submission's `--fused_gemm_gelu`) and run each sub-block's bias + dropout + residual add as one
elementwise kernel (`--fused_dropout_add`, a jit-fused bias_dropout_add as in Megatron-LM), so the
trace has one kernel where the unfused model ran three: dropout, residual add and GELU are not kernels
of their own. Layer norms stay kernels of their own (apex's fast layer norm).
"""

from building_blocks import (MASK_BYTES, TRAINABLE, Cost, Workload, attention_core, bytes_per_element, column_parallel,
                             context_parallel_kv, data_movement, elementwise, embedding, linear, make_layer, matmul,
                             norm, row_parallel)

LAYERS = 24
HIDDEN = 1024
HEADS = 16
INTERMEDIATE = 4096
VOCAB = 30522
MAX_POSITIONS = 512
TOKEN_TYPES = 2
#: Tokens per sequence: the one place the sequence length enters (GEMM rows, attention q/kv,
#: elementwise sizes, activation and communication bytes). MLPerf's max_seq_length is 512, but
#: submissions remove the padding (unpadded kernels or sequence packing) and process the tokens the
#: sequences have: the ratio of maximum to average length of MLPerf's Wikipedia data is about 2
#: (shared/references/COMPUTE.md; Krell et al., "Efficient sequence packing without
#: cross-contamination", arXiv 2107.02027), so a sequence is 256 tokens on average. Attention over
#: variable lengths costs the mean of s^2, not the square of the mean; without the length
#: distribution the trace takes 256^2 pairs, a lower bound for the attention term (about 1/8 of the
#: layer's FLOPs at this length).
SEQ_LEN = 256
MASKED_PER_SEQ = 76   # MLPerf reference max_predictions_per_seq: the MLM head runs on these positions only
NSP_CLASSES = 2


def encoder_layer(prefix, s, b):
    """One post-LN encoder layer. Activations follow Korthikanti et al. 2022, Sec. 4.1:
    attention 11sh + 5as^2, MLP 19sh, layer norms 4sh bytes (16-bit, with dropout masks).
    Tensor parallelism as Megatron-LM: QKV, attention core and FFN up + GELU split (column), attention
    output and FFN down split by input (row); each sub-block's input and output is s*h elements."""
    h, a, f = HIDDEN, HEADS, INTERMEDIATE
    m = MASK_BYTES
    E = lambda op, elements, fused=False: elementwise(op, elements, b, fused)
    x = s * h * b   # the sub-block input (gradient all-reduced in backward) and output (all-reduced in forward)
    L = lambda name, kind, cost, saved, rec=True: make_layer(prefix + name, kind, cost, TRAINABLE, saved, rec)
    return [
        # Q, K, V are kept for the QK^T and AV backward.
        column_parallel(L("attention.qkv", "linear", linear(s, h, 3 * h, bias=True), 3 * s * h * b), x),
        # softmax output (2as^2), dropout mask (as^2), dropout output (2as^2), context (2sh)
        context_parallel_kv(column_parallel(
            L("attention.core", "attention",
              attention_core(s, s, a, h // a) + E("dropout", a * s * s, fused=True),   # fused MHA (fmha)
              (2 * b + m) * a * s * s + s * h * b)), s, a, h // a, b),
        # the output projection, then bias + dropout + residual add in one kernel: its mask and the sum
        # (the layer norm's input) are kept
        row_parallel(L("attention.output", "linear", linear(s, h, h, bias=True) + E("bias_dropout_add", s * h),
                       s * h * (m + b)), x),
        L("attention.norm", "norm", norm("layernorm", s * h, h, b), s * h * b),         # FFN input
        # up-projection with bias + GELU in its epilogue: the GELU input (the epilogue's aux output) and
        # output (the down-projection's input) are kept
        column_parallel(L("ffn.up", "linear", linear(s, h, f, bias=True) + E("gelu", s * f, fused=True),
                          2 * s * f * b), x),
        row_parallel(L("ffn.down", "linear", linear(s, f, h, bias=True) + E("bias_dropout_add", s * h),
                       s * h * (m + b)), x),
        # the layer output: the next layer's input and the checkpoint boundary
        L("output.norm", "norm", norm("layernorm", s * h, h, b), s * h * b, rec=False),
    ]


def bert_large():
    precision = "fp16"
    b = bytes_per_element(precision)
    s, h, m = SEQ_LEN, HIDDEN, MASK_BYTES
    p = MASKED_PER_SEQ
    L = lambda name, kind, cost, saved: make_layer(name, kind, cost, TRAINABLE, saved, recomputed=False)
    E = lambda op, elements: elementwise(op, elements, b)

    layers = [
        # word + position + token-type lookups and their sum, two adds (kept: the layer norm's input)
        L("embeddings", "embedding",
          embedding(VOCAB, h, s, b) + embedding(MAX_POSITIONS, h, s, b) + embedding(TOKEN_TYPES, h, s, b)
          + E("add", s * h) + E("add", s * h),
          s * h * b),
        # layer norm + dropout: mask and output (the first encoder layer's input)
        L("embeddings.norm", "norm", norm("layernorm", s * h, h, b) + E("dropout", s * h), s * h * (m + b)),
    ]
    for i in range(LAYERS):
        layers += encoder_layer("encoder.%d." % i, s, b)

    layers += [
        # pooler: dense + tanh on the [CLS] token; its output is the NSP input
        L("pooler", "linear", linear(1, h, h, bias=True) + E("tanh", h), h * b),
        L("nsp.classifier", "linear", linear(1, h, NSP_CLASSES, bias=True), 0),
        # MLM transform on the masked positions: gathered input, GELU input, GELU output, norm output
        L("mlm.transform", "linear",
          data_movement("gather", p * h, b) + linear(p, h, h, bias=True) + E("gelu", p * h)
          + norm("layernorm", p * h, h, b), 4 * p * h * b),
        # decoder weight is tied to embeddings (counted there); its own parameters are the output bias
        L("mlm.decoder", "linear", Cost(params=VOCAB) + matmul(p, VOCAB, h), 0),
        # cross-entropy keeps the log-probabilities of both heads (MLM and NSP: two kernels)
        L("loss", "loss", E("log_softmax", p * VOCAB) + E("log_softmax", NSP_CLASSES), (p * VOCAB + NSP_CLASSES) * b),
    ]
    return Workload(
        name="bert-large", benchmark="bert",
        description=("BERT-large uncased pre-training (MLM + NSP), %d tokens per sequence on average (padding to 512 "
                     "removed as submissions do), MLM head on %d masked positions; "
                     "24 post-LN layers, hidden 1024, 16 heads, FFN 4096, vocab 30522; fp16 mixed precision as in "
                     "NVIDIA's MLPerf submissions; attention probabilities stored (fused MHA at this length keeps them, "
                     "as unfused attention does)."
                     % (SEQ_LEN, MASKED_PER_SEQ)),
        precision=precision, sample="sequence", optimizer="lamb", layers=tuple(layers))
