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
            self.assertEqual(0, len(entries) % len(LAYER_LINES), file_name)
            for i, line in enumerate(entries):
                self.assertRegex(line, LAYER_LINES[i % len(LAYER_LINES)], "%s: %r" % (file_name, line))

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


class Documentation(unittest.TestCase):
    def test_workloads_doc_totals_are_current(self):
        with open(os.path.join(REPO, "docs", "WORKLOADS.md"), encoding="utf-8") as f:
            doc = f.read()
        match = re.search(r"<!-- generated totals: begin -->\n(.*?)<!-- generated totals: end -->", doc, re.S)
        self.assertIsNotNone(match, "docs/WORKLOADS.md lacks the generated totals markers")
        self.assertEqual(gen.summary_markdown(), match.group(1),
                         "refresh the table with generate_workloads.py --summary")

    def test_schema_example_layer_is_an_excerpt_of_resnet50(self):
        with open(os.path.join(REPO, "workloads", "SCHEMA.md"), encoding="utf-8") as f:
            schema = f.read()
        example = re.search(r"```yaml\n.*?\n(    - name: .*?)```", schema, re.S)
        self.assertIsNotNone(example, "workloads/SCHEMA.md lacks its example layer")
        self.assertIn(example.group(1), gen.render_all()["resnet50.yaml"])


if __name__ == "__main__":
    unittest.main()
