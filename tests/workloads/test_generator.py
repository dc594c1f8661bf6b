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
from yaml_writer import GENERATOR_COMMAND  # noqa: E402

WORKLOADS = {w.name: w for w in gen.all_workloads()}
TOLERANCE = 0.02


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
        s, h = 512, 1024
        core = next(l for l in layers_of("bert-large") if l.name == "encoder.0.attention.core")
        self.assertEqual(2 * 2 * s * s * h, core.matmul_flops)  # QK^T and AV, 2 FLOP per MAC

    def test_llama2_causal_attention_counts_unmasked_pairs(self):
        s, h = 8192, 8192
        core = next(l for l in layers_of("llama2-70b-lora") if l.name == "layers.0.self-attn.core")
        self.assertEqual(2 * 2 * h * s * (s + 1) // 2, core.matmul_flops)

    def test_bert_layer_activations_match_korthikanti(self):
        # Korthikanti et al. 2022, eq. (1): s b h (34 + 5 a s / h) bytes per layer, b = 1 sample
        s, h, a = 512, 1024, 16
        for i in (0, 23):
            kept = total("bert-large", "activation_bytes", prefixed("encoder.%d." % i))
            self.assertEqual(s * h * 34 + 5 * a * s * s, kept)

    def test_checkpoint_boundaries_are_block_outputs(self):
        # with full recomputation a transformer layer keeps only its 16-bit output, 2sh bytes
        cases = (("bert-large", "encoder.5.", 2 * 512 * 1024), ("llama2-70b-lora", "layers.7.", 2 * 8192 * 8192))
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
)

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
        s, h, b, layers = 512, 1024, 2, 24
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
        # embeddings, output heads, losses, convolutions and UNet proj-in/proj-out stay replicated
        for name in WORKLOADS:
            patterns = [p for n, p, _, _ in TRANSFORMER_BLOCKS if n == name]
            stray = [l.name for l in layers_of(name) if (l.tensor_parallel or l.cp_comm_bytes)
                     and not any(re.match(p, l.name) for p in patterns)]
            self.assertEqual([], stray, name)

    def test_sharded_layers_are_linears_attention_and_the_activation_between(self):
        for name in WORKLOADS:
            kinds = {l.kind for l in layers_of(name) if l.tensor_parallel == "column"}
            self.assertLessEqual(kinds, {"linear", "lora_linear", "attention", "activation"}, name)
            kinds = {l.kind for l in layers_of(name) if l.tensor_parallel == "row"}
            self.assertLessEqual(kinds, {"linear", "lora_linear"}, name)

    def test_lora_adapters_follow_their_base_layer(self):
        modes = {l.name.split(".", 2)[2]: l.tensor_parallel for l in layers_of("llama2-70b-lora")
                 if l.kind == "lora_linear"}
        self.assertEqual({"self-attn.qkv-proj": "column", "self-attn.o-proj": "row"}, modes)

    def test_cp_bytes_are_k_and_v_of_every_self_attention(self):
        b = 2
        # s * 2 * n_kv_heads * head_dim * bytes per attention core
        self.assertEqual(24 * 512 * 2 * 16 * 64 * b, cp_bytes("bert-large"))
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
        # row layers (sh each).
        s, h, a = 512, 1024, 16
        layers = [l for l in layers_of("bert-large") if l.name.startswith("encoder.3.")]
        split = sum(l.activation_bytes for l in layers if l.tensor_parallel == "column")
        whole = sum(l.activation_bytes for l in layers if l.tensor_parallel != "column")
        self.assertEqual(s * h * 24 + 5 * a * s * s, split)
        self.assertEqual(s * h * 10, whole)
        self.assertEqual(2 * s * h, sum(l.activation_bytes for l in layers if l.tensor_parallel == "row"))


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
HEADER_LINES = (
    re.compile(r"^workload:$"),
    re.compile(r"^  name: [a-z0-9][a-z0-9.-]*$"),
    re.compile(r"^  benchmark: (bert|llama2_70b_lora|retinanet|stable_diffusion|resnet)$"),
    re.compile(r'^  description: "[^"\\]*"$'),
    re.compile(r"^  precision: (fp32|tf32|fp16|bf16|fp8)$"),
    re.compile(r"^  sample: (image|sequence)$"),
    re.compile(r"^  optimizer: (adam|lamb|sgd_momentum)$"),
    re.compile(r"^  layers:$"),
)


class EmittedFiles(unittest.TestCase):
    def test_committed_files_equal_a_fresh_generation(self):
        fresh = gen.render_all()
        self.assertEqual(5, len(fresh))
        committed = sorted(f for f in os.listdir(os.path.join(REPO, "workloads")) if f.endswith(".yaml"))
        self.assertEqual(sorted(fresh), committed, "workloads/*.yaml and the generator's outputs differ")
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
            lines = text.split("\n")
            self.assertEqual("", lines.pop(), "files end with one newline")
            comments = [l for l in lines if l.startswith("#")]
            self.assertIn("do not edit", comments[0])
            self.assertIn("generate_workloads.py --out workloads/", comments[1])
            body = lines[len(comments):]
            for line, pattern in zip(body, HEADER_LINES):
                self.assertRegex(line, pattern, file_name)
            entries = body[len(HEADER_LINES):]
            starts = [i for i, line in enumerate(entries) if line.startswith("    - name: ")]
            self.assertEqual(0, starts[0], file_name)
            for start, end in zip(starts, starts[1:] + [len(entries)]):
                entry = entries[start:end]
                self.assertGreaterEqual(len(entry), len(LAYER_LINES), "%s: %r" % (file_name, entry[0]))
                for line, pattern in zip(entry, LAYER_LINES):
                    self.assertRegex(line, pattern, "%s: %r" % (file_name, line))
                optional = iter(OPTIONAL_LAYER_LINES)
                for line in entry[len(LAYER_LINES):]:
                    self.assertTrue(any(pattern.match(line) for pattern in optional),
                                    "%s: %r is not an optional key in schema order" % (file_name, line))

    def test_layer_names_are_unique(self):
        for name, workload in WORKLOADS.items():
            names = [l.name for l in workload.layers]
            self.assertEqual(len(names), len(set(names)), name)

    def test_file_is_named_after_the_workload(self):
        for name in WORKLOADS:
            self.assertIn(name + ".yaml", gen.render_all())

    @unittest.skipUnless(importlib.util.find_spec("yaml"), "PyYAML not installed")
    def test_yaml_parser_reads_back_the_layers(self):
        import yaml
        for file_name, text in gen.render_all().items():
            doc = yaml.safe_load(text)
            self.assertEqual(["workload"], list(doc))
            workload = WORKLOADS[doc["workload"]["name"]]
            self.assertEqual(["name", "benchmark", "description", "precision", "sample", "optimizer", "layers"],
                             list(doc["workload"]))
            self.assertEqual(workload.description, doc["workload"]["description"])
            for parsed, layer in zip(doc["workload"]["layers"], workload.layers):
                self.assertEqual(layer.name, parsed["name"])
                self.assertEqual("%d FLOP" % layer.backward_flops, parsed["backward_flops_per_sample"])
                self.assertIs(layer.recomputed, parsed["recomputed"])
                self.assertEqual(layer.tensor_parallel, parsed.get("tensor_parallel"))
                for key, value in (("tp_comm_bytes_per_sample", layer.tp_comm_bytes),
                                   ("cp_comm_bytes_per_sample", layer.cp_comm_bytes)):
                    self.assertEqual(None if value is None else "%d B" % value, parsed.get(key))


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
        self.assertIn(example.group(1), gen.render_all()["bert-large.yaml"])

    def test_schema_example_layer_is_an_excerpt_of_resnet50(self):
        with open(os.path.join(REPO, "workloads", "SCHEMA.md"), encoding="utf-8") as f:
            schema = f.read()
        example = re.search(r"```yaml\n.*?\n(    - name: .*?)```", schema, re.S)
        self.assertIsNotNone(example, "workloads/SCHEMA.md lacks its example layer")
        self.assertIn(example.group(1), gen.render_all()["resnet50.yaml"])


if __name__ == "__main__":
    unittest.main()
