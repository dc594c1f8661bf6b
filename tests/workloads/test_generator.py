#!/usr/bin/python3
"""Tests of the workload-trace generator (workloads/generator) and of the committed YAML files.

Run from the repository root, either way (standard library only):
    /usr/bin/python3 -m unittest discover -s tests/workloads -p 'test_*.py'
    /usr/bin/python3 tests/workloads/test_generator.py

Published totals are typed in here, with their sources, and never in the generator: the generator
derives every layer from hyper-parameters, and these tests check that the sums land on the
published figures (within 2 % unless an exact reference count exists).
"""

import importlib.util
import os
import re
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "workloads", "generator"))

import generate_workloads as gen  # noqa: E402
import bert as bert_generator  # noqa: E402
from yaml_writer import GENERATOR_COMMAND  # noqa: E402

WORKLOADS = {w.name: w for w in gen.all_workloads()}
#: Tokens per BERT sequence: the average length submissions process (bert.SEQ_LEN's comment).
BERT_TOKENS = bert_generator.SEQ_LEN
TOLERANCE = 0.02

#: The MLPerf Training traces (`benchmark:`), in workloads/.
MLPERF_TRACES = ("resnet50", "bert-large", "llama2-70b-lora", "retinanet", "stable-diffusion")
#: Pre-training traces of no MLPerf benchmark (`efficiency_benchmark:`), in workloads/: Llama 3.1 8B and
#: 405B, GPT-3 175B.
PRETRAINING_TRACES = ("llama31-8b", "llama31-405b", "gpt3-175b")
#: Megatron-LM's GPT family, in workloads/megatron-gpt/, with its layers: Narayanan et al. 2021, Table 1
#: (the trace is named after the row's parameters in billions).
MEGATRON_GPT_FOLDER = "megatron-gpt"
MEGATRON_GPT_LAYERS = {"gpt-1.7b": 24, "gpt-3.6b": 30, "gpt-7.5b": 36, "gpt-18.4b": 40, "gpt-39.1b": 48,
                       "gpt-76.1b": 60, "gpt-145.6b": 80, "gpt-310.1b": 96, "gpt-529.6b": 105, "gpt-1008b": 128}
#: The calibrated benchmark whose kernel efficiencies every trace of no MLPerf benchmark runs at.
EFFICIENCY_BENCHMARK = "llama2_70b_lora"
#: The pre-training traces' vocabulary-parallel layers (embedding, output layer, loss), as Megatron trains them.
VOCABULARY_PARALLEL = {name: ["embed-tokens", "lm-head", "loss"] for name in ("llama31-8b", "llama31-405b")}
VOCABULARY_PARALLEL.update({name: ["embedding", "output-layer", "loss"] for name in ("gpt3-175b", *MEGATRON_GPT_LAYERS)})


def file_path(name):
    """The file of workload `name`, relative to workloads/ ('/'-separated, as render_all's keys)."""
    return (MEGATRON_GPT_FOLDER + "/" if name in MEGATRON_GPT_LAYERS else "") + name + ".yaml"


def workload_name(path):
    """The workload a file relative to workloads/ is named after."""
    return path.rsplit("/", 1)[-1][:-len(".yaml")]


def layers_of(name):
    return WORKLOADS[name].layers


def total(name, field, where=lambda layer: True):
    return sum(getattr(layer, field) for layer in layers_of(name) if where(layer))


def prefixed(prefix):
    return lambda layer: layer.name.startswith(prefix)


class PublishedTotals(unittest.TestCase):
    def assertWithin(self, expected, actual, tolerance=TOLERANCE):
        self.assertLessEqual(abs(actual - expected), tolerance * expected,
                             "%s is not within %.0f %% of %s" % (actual, 100 * tolerance, expected))

    def test_resnet50_has_25_6m_parameters(self):
        # He et al. 2016 / torchvision resnet50: 25,557,032 parameters (conv, BN affine, fc)
        self.assertWithin(25.6e6, total("resnet50", "trainable_params"))
        self.assertEqual(25557032, total("resnet50", "trainable_params"))
        self.assertEqual(0, total("resnet50", "frozen_params"))

    def test_resnet50_forward_is_4_1_gmacs(self):
        # 4.1 G multiply-adds per 224x224 image (torchvision resnet50 model card: 4.09 GFLOPS, counted as MACs)
        self.assertWithin(2 * 4.1e9, total("resnet50", "matmul_flops"))
        self.assertWithin(8.2e9, total("resnet50", "forward_flops"))

    def test_bert_large_has_335m_parameters(self):
        # Devlin et al. 2019: 340M; Hugging Face bert-large-uncased: 335M (336.2M with the MLM/NSP heads)
        self.assertWithin(335e6, total("bert-large", "trainable_params"))

    def test_llama2_70b_base_is_69b_frozen_parameters(self):
        # Touvron et al. 2023 "70B"; Hugging Face Llama-2-70b-hf: 68,976,648,192 parameters
        self.assertWithin(68.98e9, total("llama2-70b-lora", "frozen_params"))
        self.assertEqual(68976648192, total("llama2-70b-lora", "frozen_params"))

    def test_llama2_lora_count_is_closed_form(self):
        # Hu et al. 2021: an adapter on W (d_out x d_in) has r(d_in + d_out) weights.
        # MLPerf reference targets: fused qkv_proj (8192 -> 8192 + 2*8*128) and o_proj (8192 -> 8192), r = 16.
        r, layers = 16, 80
        targets = ((8192, 8192 + 2 * 8 * 128), (8192, 8192))
        expected = layers * sum(r * (d_in + d_out) for d_in, d_out in targets)
        self.assertEqual(expected, total("llama2-70b-lora", "trainable_params"))
        self.assertEqual(44564480, expected)

    def test_sd2_unet_has_865m_parameters(self):
        # Stable Diffusion 2 UNet: 865,910,724 parameters (e.g. diffusers UNet2DConditionModel of SD 2.x)
        unet = total("stable-diffusion", "trainable_params", prefixed("unet."))
        self.assertWithin(865e6, unet)
        self.assertEqual(unet, total("stable-diffusion", "trainable_params"))

    def test_sd2_frozen_encoders_have_published_sizes(self):
        # OpenCLIP ViT-H-14 text tower: 354.0M; SD VAE (AutoencoderKL) encoder + quant_conv: 34.16M
        self.assertWithin(354.0e6, total("stable-diffusion", "frozen_params", prefixed("text-encoder.")))
        # The VAE encoder is not in the MLPerf trace (latents are precomputed); its generator block
        # is still checked, for traces of pipelines that encode online.
        import stable_diffusion as sd  # noqa: E402
        self.assertWithin(34.16e6, sum(layer.frozen_params for layer in sd.vae_encoder()))
        self.assertFalse(any(layer.name.startswith("vae-encoder.") for layer in layers_of("stable-diffusion")))

    def test_retinanet_has_37_to_38m_parameters(self):
        # MLPerf RetinaNet (ResNeXt-50 32x4d FPN, 264 classes): about 37-38M parameters
        params = total("retinanet", "trainable_params") + total("retinanet", "frozen_params")
        self.assertWithin(37.5e6, params)


class BackwardRule(unittest.TestCase):
    def test_layers_with_trainable_weights_take_twice_the_forward(self):
        for name, workload in WORKLOADS.items():
            wrong = [l.name for l in workload.layers if l.trainable_params > 0 and l.kind != "lora_linear"
                     and l.backward_flops != 2 * l.forward_flops]
            self.assertEqual([], wrong, name)

    def test_lora_base_takes_once_and_adapter_twice_the_forward(self):
        s, r = 8192, 16
        dims = {"self-attn.qkv-proj": (8192, 10240), "self-attn.o-proj": (8192, 8192)}
        lora = [l for l in layers_of("llama2-70b-lora") if l.kind == "lora_linear"]
        self.assertEqual(2 * 80, len(lora))
        for layer in lora:
            d_in, d_out = dims[layer.name.split(".", 2)[2]]
            base = 2 * s * d_in * d_out
            with self.subTest(layer=layer.name):
                self.assertEqual(d_in * d_out, layer.frozen_params)
                self.assertEqual(r * (d_in + d_out), layer.trainable_params)
                self.assertEqual(base + 2 * (layer.forward_flops - base), layer.backward_flops)

    def test_llama2_frozen_layers_pass_gradients_once(self):
        wrong = [l.name for l in layers_of("llama2-70b-lora") if l.kind not in ("lora_linear", "attention")
                 and l.backward_flops != (0 if l.name == "embed-tokens" else l.forward_flops)]
        self.assertEqual([], wrong)

    def test_attention_cores_take_twice_the_forward(self):
        # QK^T and AV have two activation operands; both need gradients
        for name in ("bert-large", "llama2-70b-lora"):
            for layer in layers_of(name):
                if layer.kind == "attention":
                    self.assertEqual(2 * layer.forward_flops, layer.backward_flops, layer.name)

    def test_sd_frozen_encoders_run_forward_only(self):
        encoders = [l for l in layers_of("stable-diffusion")
                    if l.name.startswith(("text-encoder.", "vae-encoder."))]
        self.assertGreater(len(encoders), 100)
        self.assertEqual([], [l.name for l in encoders if l.backward_flops != 0 or l.trainable_params != 0])
        self.assertGreater(sum(l.forward_flops for l in encoders), 0)

    def test_forward_only_layers_keep_only_what_a_trainable_consumer_needs(self):
        # the OpenCLIP context (77 x 1024, fp16) for the cross-attention K/V weight gradients;
        # nothing else of either encoder
        kept = {l.name: l.activation_bytes for l in layers_of("stable-diffusion")
                if l.name.startswith(("text-encoder.", "vae-encoder.")) and l.activation_bytes}
        self.assertEqual({"text-encoder.final-norm": 77 * 1024 * 2}, kept)

    def test_retinanet_frozen_stem_and_layer1_have_no_backward(self):
        frozen = [l for l in layers_of("retinanet")
                  if l.name.startswith(("backbone.conv1", "backbone.maxpool", "backbone.layer1."))]
        self.assertEqual(2 + 3 * 4 + 1, len(frozen))
        self.assertEqual([], [l.name for l in frozen if l.backward_flops != 0 or l.trainable_params != 0])
        # layer1's output is layer2's weight-gradient input: the one tensor the frozen part keeps
        kept = [l.name for l in frozen if l.activation_bytes]
        self.assertEqual(["backbone.layer1.2.residual"], kept)

    def test_backward_is_zero_one_or_two_times_forward(self):
        for name, workload in WORKLOADS.items():
            wrong = [l.name for l in workload.layers if l.kind != "lora_linear"
                     and l.backward_flops not in (0, l.forward_flops, 2 * l.forward_flops)]
            self.assertEqual([], wrong, name)


class AttentionAndActivations(unittest.TestCase):
    def test_bert_attention_counts_the_full_square(self):
        s, h = BERT_TOKENS, 1024
        core = next(l for l in layers_of("bert-large") if l.name == "encoder.0.attention.core")
        self.assertEqual(2 * 2 * s * s * h, core.matmul_flops)  # QK^T and AV, 2 FLOP per MAC

    def test_llama2_causal_attention_counts_unmasked_pairs(self):
        s, h = 8192, 8192
        core = next(l for l in layers_of("llama2-70b-lora") if l.name == "layers.0.self-attn.core")
        self.assertEqual(2 * 2 * h * s * (s + 1) // 2, core.matmul_flops)

    def test_bert_layer_activations_match_korthikanti(self):
        # Korthikanti et al. 2022, eq. (1): s b h (34 + 5 a s / h) bytes per layer, b = 1 sample
        s, h, a = BERT_TOKENS, 1024, 16
        for i in (0, 23):
            kept = total("bert-large", "activation_bytes", prefixed("encoder.%d." % i))
            self.assertEqual(s * h * 34 + 5 * a * s * s, kept)

    def test_checkpoint_boundaries_are_block_outputs(self):
        # with full recomputation a transformer layer keeps only its 16-bit output, 2sh bytes
        cases = (("bert-large", "encoder.5.", 2 * BERT_TOKENS * 1024), ("llama2-70b-lora", "layers.7.", 2 * 8192 * 8192))
        for name, prefix, expected in cases:
            kept = [l for l in layers_of(name) if l.name.startswith(prefix) and not l.recomputed]
            self.assertEqual(1, len(kept), name)
            self.assertEqual(expected, kept[0].activation_bytes, name)

    def test_forward_flops_are_at_least_the_matmul_part(self):
        for name, workload in WORKLOADS.items():
            self.assertEqual([], [l.name for l in workload.layers if l.forward_flops < l.matmul_flops], name)


# ---- tensor and context parallelism ------------------------------------------------------------
# Megatron-LM (Shoeybi et al. 2019, Sec. 3): per transformer sub-block, one all-reduce of the s*h output
# in forward (row layer) and one of the s*h input gradient in backward (first column layer).
# Context parallelism all-gathers K and V: s * 2 * n_kv_heads * head_dim elements per attention core.

#: (workload, block-prefix pattern, sub-blocks per block, number of blocks)
TRANSFORMER_BLOCKS = (
    ("bert-large", r"encoder\.\d+\.", 2, 24),
    ("llama2-70b-lora", r"layers\.\d+\.", 2, 80),
    ("stable-diffusion", r"unet\.(?:(?:down|up)\.\d\.attn\d|mid\.attn)\.", 3, 16),  # self-attn, cross-attn, FF
    ("stable-diffusion", r"text-encoder\.blocks\.\d+\.", 2, 23),
    # pre-training traces: a self-attention and an MLP sub-block per decoder layer
    ("llama31-8b", r"layers\.\d+\.", 2, 32),      # Dubey et al. 2024, Table 3
    ("llama31-405b", r"layers\.\d+\.", 2, 126),   # Dubey et al. 2024, Table 3
    ("gpt3-175b", r"layers\.\d+\.", 2, 96),       # Brown et al. 2020, Table 2.1
) + tuple((name, r"layers\.\d+\.", 2, layers) for name, layers in MEGATRON_GPT_LAYERS.items())

#: SD 2 UNet spatial transformers as (tokens, channels): 64x64 latents, width 320 x (1, 2, 4), attention at
#: levels 0-2 (two per level going down, three going up) and in the 8x8 middle block.
SD_TRANSFORMERS = [(64 * 64, 320)] * 5 + [(32 * 32, 640)] * 5 + [(16 * 16, 1280)] * 5 + [(8 * 8, 1280)]


def tp_bytes(name, mode):
    return sum(l.tp_comm_bytes or 0 for l in layers_of(name) if l.tensor_parallel == mode)


def cp_bytes(name, where=lambda layer: True):
    return sum(l.cp_comm_bytes or 0 for l in layers_of(name) if where(l))


def blocks_of(name, pattern):
    """{block prefix: its layers in order} for the layers whose name starts with `pattern`."""
    blocks = {}
    for layer in layers_of(name):
        match = re.match(pattern, layer.name)
        if match:
            blocks.setdefault(match.group(0), []).append(layer)
    return blocks


class TensorAndContextParallel(unittest.TestCase):
    def test_bert_tp_bytes_are_two_all_reduces_of_s_h_per_layer_each_way(self):
        s, h, b, layers = BERT_TOKENS, 1024, 2, 24
        self.assertEqual(2 * layers * s * h * b, tp_bytes("bert-large", "row"))      # forward
        self.assertEqual(2 * layers * s * h * b, tp_bytes("bert-large", "column"))   # backward

    def test_llama2_tp_bytes_are_two_all_reduces_of_s_h_per_layer_each_way(self):
        s, h, b, layers = 8192, 8192, 2, 80
        self.assertEqual(2 * layers * s * h * b, tp_bytes("llama2-70b-lora", "row"))
        self.assertEqual(2 * layers * s * h * b, tp_bytes("llama2-70b-lora", "column"))

    def test_sd_tp_bytes_are_three_all_reduces_per_unet_block_and_two_per_text_block(self):
        b = 2
        unet = 3 * sum(n * c * b for n, c in SD_TRANSFORMERS)
        text = 2 * 23 * 77 * 1024 * b   # 23 OpenCLIP blocks run, forward only: no backward all-reduce
        self.assertEqual(unet + text, tp_bytes("stable-diffusion", "row"))
        self.assertEqual(unet, tp_bytes("stable-diffusion", "column"))
        self.assertEqual(0, sum(l.tp_comm_bytes or 0 for l in layers_of("stable-diffusion")
                                if l.tensor_parallel == "column" and l.name.startswith("text-encoder.")))

    def test_every_block_has_one_row_layer_per_sub_block(self):
        # per sub-block a run of column (c) layers closed by one row (r) layer, then replicated (-) layers
        # (norms, residual adds); a pre-LN block also starts with its norm
        for name, pattern, sub_blocks, count in TRANSFORMER_BLOCKS:
            blocks = blocks_of(name, pattern)
            self.assertEqual(count, len(blocks), pattern)
            for prefix, layers in blocks.items():
                modes = "".join({"column": "c", "row": "r", None: "-"}[l.tensor_parallel] for l in layers)
                self.assertRegex(modes, r"^-*(c+r-+){%d}$" % sub_blocks, prefix)

    def test_first_column_layer_reduces_what_the_row_layer_reduces(self):
        # f and g of one sub-block act on the same s*h tensor (its input and output); only the first
        # column layer carries f, and only when the block has a backward
        for name, pattern, _, _ in TRANSFORMER_BLOCKS:
            for prefix, layers in blocks_of(name, pattern).items():
                marked = [l for l in layers if l.tensor_parallel]
                rows = [i for i, l in enumerate(marked) if l.tensor_parallel == "row"]
                for start, row in zip([0] + [r + 1 for r in rows[:-1]], rows):
                    first, others, last = marked[start], marked[start + 1:row], marked[row]
                    with self.subTest(sub_block=first.name):
                        expected = last.tp_comm_bytes if first.backward_flops else None
                        self.assertEqual(expected, first.tp_comm_bytes)
                        self.assertEqual([], [l.name for l in others if l.tp_comm_bytes is not None])

    def test_only_transformer_blocks_are_sharded(self):
        # in the MLPerf traces embeddings, output heads, losses, convolutions and UNet proj-in/proj-out
        # stay replicated; the pre-training traces shard the vocabulary as Megatron does (below)
        for name in WORKLOADS:
            patterns = [p for n, p, _, _ in TRANSFORMER_BLOCKS if n == name]
            stray = [l.name for l in layers_of(name) if (l.tensor_parallel or l.cp_comm_bytes)
                     and not any(re.match(p, l.name) for p in patterns)]
            self.assertEqual(VOCABULARY_PARALLEL.get(name, []), stray, name)

    def test_vocabulary_parallel_layers_reduce_the_hidden_state(self):
        # VocabParallelEmbedding all-reduces its partial lookups in forward (a row layer's g); the output
        # layer is column-parallel over the vocabulary, its input gradient all-reduced (f); the loss
        # splits with the logits and moves nothing here (Shoeybi et al. 2019, Sec. 3)
        for name, vocabulary_layers in VOCABULARY_PARALLEL.items():
            layers = {l.name: l for l in layers_of(name)}
            hidden = next(l.tp_comm_bytes for l in layers_of(name) if re.match(r"layers\.0\.", l.name)
                          and l.tensor_parallel == "row")
            embedding, output, loss = (layers[n] for n in vocabulary_layers)
            self.assertEqual(("row", hidden), (embedding.tensor_parallel, embedding.tp_comm_bytes), name)
            self.assertEqual(("column", hidden), (output.tensor_parallel, output.tp_comm_bytes), name)
            self.assertEqual(("column", None), (loss.tensor_parallel, loss.tp_comm_bytes), name)

    def test_sharded_layers_are_linears_attention_and_the_activation_between(self):
        for name in WORKLOADS:
            vocabulary = VOCABULARY_PARALLEL.get(name, [])
            kinds = {l.kind for l in layers_of(name) if l.tensor_parallel == "column" and l.name not in vocabulary}
            self.assertLessEqual(kinds, {"linear", "lora_linear", "attention", "activation"}, name)
            kinds = {l.kind for l in layers_of(name) if l.tensor_parallel == "row" and l.name not in vocabulary}
            self.assertLessEqual(kinds, {"linear", "lora_linear"}, name)

    def test_lora_adapters_follow_their_base_layer(self):
        modes = {l.name.split(".", 2)[2]: l.tensor_parallel for l in layers_of("llama2-70b-lora")
                 if l.kind == "lora_linear"}
        self.assertEqual({"self-attn.qkv-proj": "column", "self-attn.o-proj": "row"}, modes)

    def test_cp_bytes_are_k_and_v_of_every_self_attention(self):
        b = 2
        # s * 2 * n_kv_heads * head_dim * bytes per attention core
        self.assertEqual(24 * BERT_TOKENS * 2 * 16 * 64 * b, cp_bytes("bert-large"))
        self.assertEqual(80 * 8192 * 2 * 8 * 128 * b, cp_bytes("llama2-70b-lora"))   # GQA: 8 KV heads
        # SD self-attention: heads * 64 = channels; the text encoder: 16 heads x 64, 77 tokens
        self.assertEqual(sum(n * 2 * c * b for n, c in SD_TRANSFORMERS),
                         cp_bytes("stable-diffusion", prefixed("unet.")))
        self.assertEqual(23 * 77 * 2 * 1024 * b, cp_bytes("stable-diffusion", prefixed("text-encoder.")))

    def test_cp_bytes_sit_on_attention_cores_but_not_on_cross_attention(self):
        # cross-attention K/V come from the 77-token context, which every context-parallel rank holds
        for name in WORKLOADS:
            for layer in layers_of(name):
                with self.subTest(layer=layer.name):
                    if layer.kind == "attention" and not layer.name.endswith("attn2.core"):
                        self.assertIsNotNone(layer.cp_comm_bytes)
                        self.assertEqual("column", layer.tensor_parallel)
                    else:
                        self.assertIsNone(layer.cp_comm_bytes)

    def test_cnn_traces_have_no_parallel_keys(self):
        for name in ("resnet50", "retinanet"):
            self.assertEqual([], [l.name for l in layers_of(name)
                                  if (l.tensor_parallel, l.tp_comm_bytes, l.cp_comm_bytes) != (None, None, None)])
            text = gen.render_all()[name + ".yaml"]
            self.assertNotRegex(text, r"tensor_parallel|tp_comm|cp_comm|tensor parallel|context parallel", name)

    def test_bert_split_matches_korthikanti_eq2(self):
        # Korthikanti et al. 2022, eq. (2), tensor parallel without sequence parallelism:
        # s h (10 + 24/t + 5 a s / (h t)) bytes per layer. The column layers hold the /t part; the
        # replicated 10sh are the norm and residual inputs (8sh) plus the output dropout masks of the two
        # row layers (sh each). The row layers end in the fused bias + dropout + residual add, so each
        # holds its mask and the sum it hands to the next layer norm (sh + 2sh).
        s, h, a = BERT_TOKENS, 1024, 16
        layers = [l for l in layers_of("bert-large") if l.name.startswith("encoder.3.")]
        split = sum(l.activation_bytes for l in layers if l.tensor_parallel == "column")
        whole = sum(l.activation_bytes for l in layers if l.tensor_parallel != "column")
        self.assertEqual(s * h * 24 + 5 * a * s * s, split)
        self.assertEqual(s * h * 10, whole)
        self.assertEqual(2 * 3 * s * h, sum(l.activation_bytes for l in layers if l.tensor_parallel == "row"))


# ---- kernels -----------------------------------------------------------------------------------
# workloads/SCHEMA.md, "Kernels": the forward kernels of one sample per layer. The FLOPs are recomputed
# here from the emitted YAML text with the schema's formulas, independently of the generator's code.

SOFTMAX_FLOP = 5


def conv_out(size, kernel, stride, pad):
    return (size + 2 * pad - kernel) // stride + 1


def kernel_flops(k):
    """Forward FLOPs of one parsed kernel (a dict of the flow mapping) by the schema's formulas."""
    if k["op"] == "gemm":
        return 2 * k["m"] * k["n"] * k["k"] * k["batch"]
    if k["op"] == "conv":
        out_h, out_w = conv_out(k["h"], k["r"], k["stride"], k["pad"]), conv_out(k["w"], k["s"], k["stride"], k["pad"])
        return 2 * out_h * out_w * k["k"] * (k["c"] // k["groups"]) * k["r"] * k["s"]
    if k["op"] == "attention":
        pairs = k["q"] * (k["q"] + 1) // 2 if k["causal"] else k["q"] * k["kv"]
        return k["heads"] * pairs * (4 * k["head_dim"] + SOFTMAX_FLOP)
    assert k["op"] == "elementwise", k
    return k["elements"] * k["flop_per_element"]


def expanded_text(text):
    """`text` with every repeat group written out, read from the emitted lines alone (an implementation
    independent of the generator's): a group is `    - repeat: N`, an optional `      first_index: K`,
    `      layers:` and its block four columns deeper, names quoted; each copy replaces {i} by its index."""
    lines, out, at = text.split("\n"), [], 0
    while at < len(lines):
        match = re.match(r"^    - repeat: ([1-9][0-9]*)$", lines[at])
        if not match:
            out.append(lines[at])
            at += 1
            continue
        count, at = int(match.group(1)), at + 1
        first = re.match(r"^      first_index: ([1-9][0-9]*)$", lines[at])
        first_index, at = (int(first.group(1)), at + 1) if first else (0, at)
        assert lines[at] == "      layers:", lines[at]
        block, at = [], at + 1
        while at < len(lines) and lines[at].startswith("        "):
            block.append(lines[at][4:])
            at += 1
        for index in range(first_index, first_index + count):
            for line in block:
                name = re.match(r'^    - name: "(.*)"$', line)
                out.append("    - name: " + name.group(1).replace("{i}", str(index)) if name else line)
    return "\n".join(out)


def _scalar(text):
    if text in ("true", "false"):
        return text == "true"
    return int(text) if re.match(r"^[0-9]+$", text) else text


def parsed_layers(file_name):
    """[(layer fields, [kernel dicts])] read back from the emitted text of one workload."""
    layers = []
    for line in expanded_text(gen.render_all()[file_name]).split("\n"):
        if line.startswith("    - name: "):
            layers.append(({"name": line.split(": ", 1)[1]}, []))
        elif line.startswith("        - {"):
            body = line[len("        - {"):-1]
            layers[-1][1].append({key: _scalar(value) for key, value in (item.split(": ") for item in body.split(", "))})
        elif layers and line.startswith("      ") and ": " in line:
            key, value = line.strip().split(": ", 1)
            layers[-1][0][key] = value
    return layers


def flop_value(text):
    return int(text.strip('"').split()[0])


def kernels_of(name, layer_name):
    return next(l.kernels for l in layers_of(name) if l.name == layer_name)


class Kernels(unittest.TestCase):
    def test_kernel_flops_add_up_to_the_layer_forward_and_backward(self):
        for file_name in gen.render_all():
            for fields, kernels in parsed_layers(file_name):
                with self.subTest(file=file_name, layer=fields["name"]):
                    forward = flop_value(fields["forward_flops_per_sample"])
                    backward = flop_value(fields["backward_flops_per_sample"])
                    self.assertEqual(forward, sum(kernel_flops(k) for k in kernels))
                    self.assertEqual(backward, sum(k["backward_factor"] * kernel_flops(k) for k in kernels))

    def test_every_layer_with_work_has_kernels_and_unused_weights_have_none(self):
        for name in WORKLOADS:
            for layer in layers_of(name):
                with self.subTest(layer=layer.name):
                    if layer.forward_flops > 0:
                        self.assertGreater(len(layer.kernels), 0)
                    if layer.kind == "other":
                        self.assertEqual((), layer.kernels)

    def test_the_vae_encoder_kernels_add_up_too(self):
        # not in the MLPerf trace, but generated for what-if traces: same identities, unfused attention
        import stable_diffusion as sd  # noqa: E402
        for layer in sd.vae_encoder():
            with self.subTest(layer=layer.name):
                self.assertEqual(layer.forward_flops, sum(k.flops for k in layer.kernels))
                self.assertEqual(0, layer.backward_flops)
        core = next(l for l in sd.vae_encoder() if l.name == "vae-encoder.mid.attn.core")
        self.assertEqual(["gemm", "elementwise", "gemm"], [k.op for k in core.kernels])

    def test_fused_kernels_are_elementwise_and_never_first(self):
        for file_name in gen.render_all():
            for fields, kernels in parsed_layers(file_name):
                with self.subTest(file=file_name, layer=fields["name"]):
                    if kernels:
                        self.assertFalse(kernels[0].get("fused", False))
                    for k in kernels:
                        self.assertEqual(k["op"] == "elementwise", "fused" in k)

    def test_attention_kernels_are_consistent(self):
        for file_name in gen.render_all():
            for fields, kernels in parsed_layers(file_name):
                for k in (k for k in kernels if k["op"] == "attention"):
                    with self.subTest(file=file_name, layer=fields["name"]):
                        self.assertEqual("attention", fields["kind"])
                        self.assertEqual(0, k["heads"] % k["kv_heads"])
                        if k["causal"]:
                            self.assertEqual(k["q"], k["kv"])

    def test_convolutions_reproduce_the_layer_output(self):
        # every conv kernel has a positive output; ResNet's stride-2 convs halve the edge
        for name in ("resnet50", "retinanet", "stable-diffusion"):
            for layer in layers_of(name):
                for k in layer.kernels:
                    if k.op == "conv":
                        edge = conv_out(k.value("h"), k.value("r"), k.value("stride"), k.value("pad"))
                        self.assertGreater(edge, 0, layer.name)
                        if k.value("stride") == 2:
                            self.assertEqual((k.value("h") + 1) // 2, edge, layer.name)

    def test_backward_factors_follow_the_layer_rule(self):
        # frozen-only and forward-only layers: a forward-only layer has factor 0 on every kernel
        for name in WORKLOADS:
            for layer in layers_of(name):
                factors = {k.backward_factor for k in layer.kernels}
                with self.subTest(layer=layer.name):
                    if layer.backward_flops == 0 and layer.forward_flops > 0:
                        self.assertEqual({0}, factors)
                    if layer.kind == "lora_linear":
                        self.assertEqual([1, 2, 2, 2, 2], [k.backward_factor for k in layer.kernels])

    def test_bert_shapes(self):
        import bert  # noqa: E402
        s = bert.SEQ_LEN
        self.assertEqual(256, s)   # the average unpadded length; see the constant's comment
        qkv = kernels_of("bert-large", "encoder.0.attention.qkv")
        self.assertEqual([("gemm", (("m", s), ("n", 3072), ("k", 1024), ("batch", 1)), 2)],
                         [(k.op, k.shape, k.backward_factor) for k in qkv])
        core = kernels_of("bert-large", "encoder.0.attention.core")
        self.assertEqual(["attention", "elementwise"], [k.op for k in core])
        self.assertEqual({"heads": 16, "kv_heads": 16, "q": s, "kv": s, "head_dim": 64, "causal": False},
                         dict(core[0].shape))
        self.assertTrue(core[1].fused)
        self.assertEqual(16 * s * s, core[1].value("elements"))   # attention dropout inside the kernel
        # every encoder gemm works on the s tokens of the sequence
        rows = {k.value("m") for l in layers_of("bert-large") if l.name.startswith("encoder.")
                for k in l.kernels if k.op == "gemm"}
        self.assertEqual({s}, rows)
        self.assertEqual([("gemm", 76, 30522, 1024)],
                         [(k.op, k.value("m"), k.value("n"), k.value("k"))
                          for k in kernels_of("bert-large", "mlm.decoder")])

    def test_bert_sequence_length_is_one_constant(self):
        # a trace at another length (here the padded 512) changes every place the sequence enters
        import bert  # noqa: E402
        saved, bert.SEQ_LEN = bert.SEQ_LEN, 512
        try:
            workload = bert.bert_large()
        finally:
            bert.SEQ_LEN = saved
        layers = workload.layers
        s, h, a, b = 512, 1024, 16, 2
        encoder = [l for l in layers if l.name.startswith("encoder.")]
        self.assertEqual({s}, {k.value("m") for l in encoder for k in l.kernels if k.op == "gemm"})
        self.assertEqual({(s, s)}, {(k.value("q"), k.value("kv")) for l in encoder for k in l.kernels
                                    if k.op == "attention"})
        self.assertEqual(s * h * 34 + 5 * a * s * s,
                         sum(l.activation_bytes for l in encoder if l.name.startswith("encoder.0.")))
        self.assertEqual({s * h * b}, {l.tp_comm_bytes for l in encoder if l.tensor_parallel == "row"})
        self.assertEqual({s * h}, {k.value("elements") for l in layers if l.name == "embeddings" for k in l.kernels})
        self.assertIn("512 tokens per sequence", workload.description)

    def test_resnet50_shapes(self):
        conv1 = kernels_of("resnet50", "layer1.0.conv1")
        self.assertEqual(("conv", (("h", 56), ("w", 56), ("c", 64), ("k", 64), ("r", 1), ("s", 1), ("stride", 1),
                                   ("pad", 0), ("groups", 1))), (conv1[0].op, conv1[0].shape))
        # BatchNorm and ReLU in the convolution's epilogue (NVIDIA's MXNet/cuDNN submissions)
        self.assertEqual([False, True, True], [bool(k.fused) for k in conv1])
        stem = kernels_of("resnet50", "conv1")[0]
        self.assertEqual((224, 3, 64, 7, 2, 3), tuple(stem.value(k) for k in ("h", "c", "k", "r", "stride", "pad")))
        down = kernels_of("resnet50", "layer2.0.conv2")[0]      # v1.5: stride 2 in the 3x3 conv
        self.assertEqual((56, 2, 1), (down.value("h"), down.value("stride"), down.value("pad")))

    def test_retinanet_heads_run_on_every_level(self):
        convs = [k for k in kernels_of("retinanet", "head.cls.conv1") if k.op == "conv"]
        self.assertEqual([100, 50, 25, 13, 7], [k.value("h") for k in convs])
        grouped = kernels_of("retinanet", "backbone.layer2.0.conv2")[0]
        self.assertEqual(32, grouped.value("groups"))

    def test_llama2_shapes(self):
        import llama2  # noqa: E402
        s = llama2.SEQ_LEN
        self.assertEqual(8192, s)
        core = [k for k in kernels_of("llama2-70b-lora", "layers.0.self-attn.core") if k.op == "attention"]
        self.assertEqual([{"heads": 64, "kv_heads": 8, "q": s, "kv": s, "head_dim": 128, "causal": True}],
                         [dict(k.shape) for k in core])
        qkv = kernels_of("llama2-70b-lora", "layers.0.self-attn.qkv-proj")
        self.assertEqual([(s, 10240, 8192, 1), (s, 16, 8192, 2), (s, 10240, 16, 2)],
                         [(k.value("m"), k.value("n"), k.value("k"), k.backward_factor) for k in qkv if k.op == "gemm"])

    def test_stable_diffusion_attention_shapes(self):
        # 64x64 latent: 4096 tokens at level 0 with 320 channels = 5 heads of 64; cross-attention on 77 tokens
        self_attn = kernels_of("stable-diffusion", "unet.down.0.attn0.block.attn1.core")
        cross = kernels_of("stable-diffusion", "unet.down.0.attn0.block.attn2.core")
        self.assertEqual({"heads": 5, "kv_heads": 5, "q": 4096, "kv": 4096, "head_dim": 64, "causal": False},
                         dict(self_attn[0].shape))
        self.assertEqual((4096, 77), (cross[0].value("q"), cross[0].value("kv")))
        text = kernels_of("stable-diffusion", "text-encoder.blocks.0.attn.core")
        self.assertEqual((16, 77, True, 0), (text[0].value("heads"), text[0].value("q"), text[0].value("causal"),
                                             text[0].backward_factor))


# One line of an emitted file, by position in a layer entry: the schema's keys in its order.
LAYER_LINES = (
    re.compile(r"^    - name: [a-z0-9][a-z0-9.-]*$"),
    re.compile(r"^      kind: (embedding|conv|linear|attention|norm|activation|pool|elementwise|loss|"
               r"lora_linear|other)$"),
    re.compile(r"^      trainable_params: (0|[1-9][0-9]*)$"),
    re.compile(r"^      frozen_params: (0|[1-9][0-9]*)$"),
    re.compile(r'^      forward_flops_per_sample: "(0|[1-9][0-9]*) FLOP"$'),
    re.compile(r'^      backward_flops_per_sample: "(0|[1-9][0-9]*) FLOP"$'),
    re.compile(r'^      activation_bytes_per_sample: "(0|[1-9][0-9]*) B"$'),
    re.compile(r"^      recomputed: (true|false)$"),
)
# Optional keys after `recomputed`, each at most once, in this order.
OPTIONAL_LAYER_LINES = (
    re.compile(r"^      tensor_parallel: (column|row)$"),
    re.compile(r'^      tp_comm_bytes_per_sample: "[1-9][0-9]* B"$'),
    re.compile(r'^      cp_comm_bytes_per_sample: "[1-9][0-9]* B"$'),
)
# The `kernels:` list, last in a layer entry: one flow mapping per line, keys in the schema's order.
_INT = r"(0|[1-9][0-9]*)"
_POS = r"[1-9][0-9]*"
_FACTOR = r", backward_factor: [012]"
KERNELS_LINE = re.compile(r"^      kernels:$")
KERNEL_LINES = (
    re.compile(r"^        - \{op: gemm, m: %s, n: %s, k: %s, batch: %s%s\}$" % (_POS, _POS, _POS, _POS, _FACTOR)),
    re.compile(r"^        - \{op: conv, h: %s, w: %s, c: %s, k: %s, r: %s, s: %s, stride: %s, pad: %s, groups: %s%s\}$"
               % (_POS, _POS, _POS, _POS, _POS, _POS, _POS, _INT, _POS, _FACTOR)),
    re.compile(r"^        - \{op: attention, heads: %s, kv_heads: %s, q: %s, kv: %s, head_dim: %s, causal: (true|false)%s\}$"
               % (_POS, _POS, _POS, _POS, _POS, _FACTOR)),
    re.compile(r"^        - \{op: elementwise, elements: %s, flop_per_element: %s, bytes_per_element: %s%s, "
               r"fused: (true|false)\}$" % (_POS, _INT, _POS, _FACTOR)),
)
HEADER_LINES = (
    re.compile(r"^workload:$"),
    re.compile(r"^  name: [a-z0-9][a-z0-9.-]*$"),
    # `benchmark:` in an MLPerf trace; `efficiency_benchmark:` in its place in a trace of no benchmark
    re.compile(r"^  (benchmark|efficiency_benchmark): (bert|llama2_70b_lora|retinanet|stable_diffusion|resnet)$"),
    re.compile(r'^  description: "[^"\\]*"$'),
    re.compile(r"^  precision: (fp32|tf32|fp16|bf16|fp8|nvfp4|mxfp4)$"),
    re.compile(r"^  sample: (image|sequence)$"),
    re.compile(r"^  optimizer: (adam|lamb|sgd_momentum)$"),
    re.compile(r"^  layers:$"),
)


def expanded_entries(entries):
    """The parsed `layers:` list with its repeat groups written out (names substituted, dicts copied)."""
    out = []
    for entry in entries:
        if "repeat" not in entry:
            out.append(entry)
            continue
        first_index = entry.get("first_index", 0)
        for index in range(first_index, first_index + entry["repeat"]):
            out += [dict(layer, name=layer["name"].replace("{i}", str(index))) for layer in entry["layers"]]
    return out


class EmittedFiles(unittest.TestCase):
    def test_committed_files_equal_a_fresh_generation(self):
        fresh = gen.render_all()
        self.assertEqual(18, len(fresh))
        expected = sorted(file_path(name) for name in MLPERF_TRACES + PRETRAINING_TRACES + tuple(MEGATRON_GPT_LAYERS))
        self.assertEqual(expected, sorted(fresh))
        committed = sorted([f for f in os.listdir(os.path.join(REPO, "workloads")) if f.endswith(".yaml")]
                           + [MEGATRON_GPT_FOLDER + "/" + f
                              for f in os.listdir(os.path.join(REPO, "workloads", MEGATRON_GPT_FOLDER))
                              if f.endswith(".yaml")])
        self.assertEqual(sorted(fresh), committed, "workloads/*.yaml, workloads/%s/*.yaml and the generator's "
                                                   "outputs differ" % MEGATRON_GPT_FOLDER)
        for file_name, text in fresh.items():
            with open(os.path.join(REPO, "workloads", file_name), encoding="utf-8", newline="") as f:
                self.assertTrue(f.read() == text,
                                "workloads/%s was edited or is stale; regenerate with: %s"
                                % (file_name, GENERATOR_COMMAND))

    def test_command_line_writes_the_same_bytes(self):
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(0, gen.main(["--out", out]))
            self.assertEqual(0, gen.main(["--out", out, "--check"]))
            for file_name, text in gen.render_all().items():
                with open(os.path.join(out, file_name), encoding="utf-8", newline="") as f:
                    self.assertTrue(f.read() == text, file_name)

    def test_every_line_follows_the_schema(self):
        for file_name, text in gen.render_all().items():
            lines = expanded_text(text).split("\n")
            self.assertEqual("", lines.pop(), "files end with one newline")
            comments = [l for l in lines if l.startswith("#")]
            self.assertIn("do not edit", comments[0])
            self.assertIn("generate_workloads.py --out workloads/", comments[1])
            body = lines[len(comments):]
            self.assertGreater(len(body), len(HEADER_LINES), file_name)
            for line, pattern in zip(body, HEADER_LINES):
                self.assertRegex(line, pattern, file_name)
            if workload_name(file_name) in MLPERF_TRACES:
                self.assertRegex(body[2], r"^  benchmark: ", file_name)
            else:
                self.assertEqual("  efficiency_benchmark: " + EFFICIENCY_BENCHMARK, body[2], file_name)
            entries = body[len(HEADER_LINES):]
            starts = [i for i, line in enumerate(entries) if line.startswith("    - name: ")]
            self.assertEqual(0, starts[0], file_name)
            for start, end in zip(starts, starts[1:] + [len(entries)]):
                entry = entries[start:end]
                self.assertGreaterEqual(len(entry), len(LAYER_LINES), "%s: %r" % (file_name, entry[0]))
                for line, pattern in zip(entry, LAYER_LINES):
                    self.assertRegex(line, pattern, "%s: %r" % (file_name, line))
                rest = entry[len(LAYER_LINES):]
                if any(KERNELS_LINE.match(line) for line in rest):
                    kernels_at = next(i for i, l in enumerate(rest) if KERNELS_LINE.match(l))
                    rest, kernel_lines = rest[:kernels_at], rest[kernels_at + 1:]
                    self.assertGreater(len(kernel_lines), 0, "%s: %r" % (file_name, entry[0]))
                    for line in kernel_lines:
                        self.assertTrue(any(pattern.match(line) for pattern in KERNEL_LINES),
                                        "%s: %r is not a kernel in the schema's form" % (file_name, line))
                optional = iter(OPTIONAL_LAYER_LINES)
                for line in rest:
                    self.assertTrue(any(pattern.match(line) for pattern in optional),
                                    "%s: %r is not an optional key in schema order" % (file_name, line))

    def test_layer_names_are_unique(self):
        for name, workload in WORKLOADS.items():
            names = [l.name for l in workload.layers]
            self.assertEqual(len(names), len(set(names)), name)

    def test_file_is_named_after_the_workload(self):
        fresh = gen.render_all()
        self.assertEqual(sorted(file_path(name) for name in WORKLOADS), sorted(fresh))
        for name in WORKLOADS:
            self.assertIn(file_path(name), fresh)
            self.assertIn("\nworkload:\n  name: %s\n" % name, fresh[file_path(name)])

    @unittest.skipUnless(importlib.util.find_spec("yaml"), "PyYAML not installed")
    def test_yaml_parser_reads_back_the_layers(self):
        import yaml
        for file_name, text in gen.render_all().items():
            doc = yaml.safe_load(text)
            self.assertEqual(["workload"], list(doc))
            workload = WORKLOADS[doc["workload"]["name"]]
            self.assertEqual(file_path(workload.name), file_name)
            key = "benchmark" if workload.name in MLPERF_TRACES else "efficiency_benchmark"
            self.assertEqual(["name", key, "description", "precision", "sample", "optimizer", "layers"],
                             list(doc["workload"]))
            self.assertEqual(getattr(workload, key), doc["workload"][key])
            if key == "efficiency_benchmark":
                self.assertEqual(EFFICIENCY_BENCHMARK, doc["workload"][key])
                self.assertIsNone(workload.benchmark)
            self.assertEqual(workload.description, doc["workload"]["description"])
            parsed_layers_ = expanded_entries(doc["workload"]["layers"])
            self.assertEqual(len(workload.layers), len(parsed_layers_))
            for parsed, layer in zip(parsed_layers_, workload.layers):
                self.assertEqual(layer.name, parsed["name"])
                self.assertEqual("%d FLOP" % layer.backward_flops, parsed["backward_flops_per_sample"])
                self.assertIs(layer.recomputed, parsed["recomputed"])
                self.assertEqual(layer.tensor_parallel, parsed.get("tensor_parallel"))
                for key, value in (("tp_comm_bytes_per_sample", layer.tp_comm_bytes),
                                   ("cp_comm_bytes_per_sample", layer.cp_comm_bytes)):
                    self.assertEqual(None if value is None else "%d B" % value, parsed.get(key))
                self.assertEqual([dict(k.items()) for k in layer.kernels] or None, parsed.get("kernels"))
                if "kernels" in parsed:
                    self.assertEqual("kernels", list(parsed)[-1])


class RepeatGroups(unittest.TestCase):
    """Runs of identical blocks are written once, as repeat groups (workloads/SCHEMA.md, "Repeated blocks")."""

    def test_the_committed_form_expands_to_exactly_the_flat_form(self):
        flat = gen.render_all(repeat_groups=False)
        for file_name, text in gen.render_all().items():
            with self.subTest(file=file_name):
                self.assertTrue(expanded_text(text) == flat[file_name], file_name)
                self.assertNotIn("repeat:", flat[file_name])

    def test_identical_blocks_are_grouped(self):
        texts = gen.render_all()
        for file_name, block_name, count in (("llama2-70b-lora.yaml", "layers.{i}.input-norm", 80),
                                             ("bert-large.yaml", "encoder.{i}.attention.qkv", 24),
                                             ("stable-diffusion.yaml", "text-encoder.blocks.{i}.ln1", 23)):
            with self.subTest(file=file_name):
                self.assertIn('    - repeat: %d\n      layers:\n        - name: "%s"\n' % (count, block_name),
                              texts[file_name])
        # ResNet-50: the bottlenecks of a stage after its first (which has the downsample)
        self.assertIn('    - repeat: 5\n      first_index: 1\n      layers:\n        - name: "layer3.{i}.conv1"\n',
                      texts["resnet50.yaml"])

    def test_group_headers_follow_the_schema(self):
        for file_name, text in gen.render_all().items():
            lines = text.split("\n")
            for at, line in enumerate(lines):
                if line.startswith("    - repeat: "):
                    self.assertRegex(line, r"^    - repeat: ([2-9]|[1-9][0-9]+)$", file_name)
                    rest = lines[at + 1:at + 3]
                    if rest[0].startswith("      first_index: "):
                        self.assertRegex(rest[0], r"^      first_index: [1-9][0-9]*$", file_name)
                        rest = lines[at + 2:at + 4]
                    self.assertEqual("      layers:", rest[0], file_name)
                    self.assertRegex(rest[1], r'^        - name: "[a-z0-9.{}-]*\{i\}[a-z0-9.{}-]*"$', file_name)

    def test_grouping_stops_where_blocks_differ(self):
        import repeat_groups as rg
        body = ("      kind: norm",)
        other = ("      kind: linear",)
        entries = [("a.0.x", body), ("a.0.y", other), ("a.1.x", body), ("a.1.y", other),
                   ("a.2.x", body), ("a.2.y", body), ("b", body)]
        grouped = rg.group_repeats(entries)
        self.assertEqual(rg.RepeatGroup(0, 2, (("a.{i}.x", body), ("a.{i}.y", other))), grouped[0])
        self.assertEqual(entries[4:], grouped[1:])
        self.assertEqual(entries, rg.expand(grouped))

    def test_a_block_spans_sibling_components_with_one_index(self):
        import repeat_groups as rg
        res, attn = ("      kind: conv",), ("      kind: attention",)
        entries = [("u.res0.c", res), ("u.attn0.p", attn), ("u.res1.c", res), ("u.attn1.p", attn), ("u.down", res)]
        self.assertEqual([rg.RepeatGroup(0, 2, (("u.res{i}.c", res), ("u.attn{i}.p", attn))), entries[4]],
                         rg.group_repeats(entries))

    def test_indices_must_go_up_by_one(self):
        import repeat_groups as rg
        body = ("      kind: norm",)
        entries = [("conv1", body), ("conv3", body), ("conv4", body), ("conv5", body)]
        self.assertEqual([entries[0], rg.RepeatGroup(3, 3, (("conv{i}", body),))], rg.group_repeats(entries))


class Documentation(unittest.TestCase):
    def test_workloads_doc_totals_are_current(self):
        with open(os.path.join(REPO, "docs", "WORKLOADS.md"), encoding="utf-8") as f:
            doc = f.read()
        match = re.search(r"<!-- generated totals: begin -->\n(.*?)<!-- generated totals: end -->", doc, re.S)
        self.assertIsNotNone(match, "docs/WORKLOADS.md lacks the generated totals markers")
        self.assertEqual(gen.summary_markdown(), match.group(1),
                         "refresh the table with generate_workloads.py --summary")

    def test_workloads_doc_parallelism_table_is_current(self):
        with open(os.path.join(REPO, "docs", "WORKLOADS.md"), encoding="utf-8") as f:
            doc = f.read()
        match = re.search(r"<!-- generated parallelism: begin -->\n(.*?)<!-- generated parallelism: end -->", doc, re.S)
        self.assertIsNotNone(match, "docs/WORKLOADS.md lacks the generated parallelism markers")
        self.assertEqual(gen.parallelism_markdown(), match.group(1),
                         "refresh the table with generate_workloads.py --summary")

    def test_schema_parallelism_example_is_an_excerpt_of_bert_large(self):
        with open(os.path.join(REPO, "workloads", "SCHEMA.md"), encoding="utf-8") as f:
            schema = f.read()
        example = re.search(r"```yaml\n# \(an excerpt of bert-large\.yaml[^\n]*\n(.*?)```", schema, re.S)
        self.assertIsNotNone(example, "workloads/SCHEMA.md lacks its tensor-parallel example")
        self.assertIn(example.group(1), gen.render_all(repeat_groups=False)["bert-large.yaml"])

    def test_schema_example_layer_is_an_excerpt_of_resnet50(self):
        with open(os.path.join(REPO, "workloads", "SCHEMA.md"), encoding="utf-8") as f:
            schema = f.read()
        example = re.search(r"```yaml\n.*?\n(    - name: .*?)```", schema, re.S)
        self.assertIsNotNone(example, "workloads/SCHEMA.md lacks its example layer")
        self.assertIn(example.group(1), gen.render_all()["resnet50.yaml"])


if __name__ == "__main__":
    unittest.main()
