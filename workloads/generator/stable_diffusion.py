"""Stable Diffusion v2 training at 512x512 (MLPerf Training `stable_diffusion`).

Sources:
* UNet: Rombach et al. 2022, "High-Resolution Image Synthesis with Latent Diffusion Models", and the
  SD 2 config used by the MLPerf reference (Stability-AI stablediffusion configs/stable-diffusion/
  v2-inference.yaml; mlcommons training stable_diffusion configs/train_*.yaml): model_channels 320,
  channel_mult (1, 2, 4, 4), num_res_blocks 2, attention_resolutions (4, 2, 1), num_head_channels 64,
  use_linear_in_transformer, transformer_depth 1, context_dim 1024, use_checkpoint, 4 latent
  channels; code ldm/modules/diffusionmodules/openaimodel.py (UNetModel, ResBlock, Downsample,
  Upsample) and ldm/modules/attention.py (SpatialTransformer, BasicTransformerBlock, GEGLU).
* Text encoder: OpenCLIP ViT-H-14 text tower (open_clip model_configs/ViT-H-14.json: width 1024,
  16 heads, 24 layers, context 77, vocab 49408, MLP ratio 4, causal mask), used frozen through its
  penultimate layer (ldm FrozenOpenCLIPEmbedder, layer="penultimate": 23 blocks run, then ln_final).
* VAE encoder: AutoencoderKL (ldm/modules/diffusionmodules/model.py Encoder; SD 2 first_stage_config:
  ch 128, ch_mult (1, 2, 4, 4), num_res_blocks 2, no attention except the mid block, z_channels 4,
  double_z), frozen; latents scaled by 0.18215.
* Optimizer AdamW; fp16 (the reference trains with Lightning precision 16).
The frozen encoders run forward only: nothing upstream of them is trainable.
Attention uses a memory-efficient kernel (xformers / FlashAttention, which the reference and the
submissions use), so the attention core keeps its output and the log-sum-exp, not the probabilities.
Tensor/context parallelism: Megatron-LM's layout (Shoeybi et al. 2019, Sec. 3) on the attention and
feed-forward linears of the UNet's BasicTransformerBlocks and of the text encoder's blocks; convolutions,
norms, the transformer's proj_in/proj_out and the time embedding stay replicated (workloads/SCHEMA.md).
Kernels: every attention of the UNet and of the text encoder is one fused `attention` kernel
(xformers / FlashAttention in the reference, cuDNN / FlashAttention in NVIDIA's NeMo submissions). The
VAE encoder's single-head AttnBlock (not in the MLPerf trace) is written unfused: two batched gemms and
a softmax, as ldm's vanilla AttnBlock runs. GroupNorm and SiLU, the time-embedding add, GEGLU, the
residual adds and the layer norms are kernels of their own: NVIDIA's submissions may fuse GroupNorm with
SiLU (apex's NHWC group norm), which is not certain enough to mark here. Nearest upsampling and the
skip concatenation are kernels of 0 FLOP that move data.
"""

from building_blocks import (FORWARD_ONLY, FP32_BYTES, TRAINABLE, Workload, attention_core, bytes_per_element,
                             column_parallel, context_parallel_kv, conv2d, data_movement, elementwise, embedding,
                             linear, make_layer, norm, row_parallel, unused_weights_layer)

PRECISION = "fp16"                   # the reference trains with Lightning precision 16
IMAGE_SIZE = 512
LATENT_CHANNELS = 4
LATENT_DOWNSCALE = 8                 # three stride-2 stages of the VAE encoder
MODEL_CHANNELS = 320
CHANNEL_MULT = (1, 2, 4, 4)
RES_BLOCKS = 2
ATTENTION_LEVELS = (0, 1, 2)         # attention_resolutions (4, 2, 1) = downsampling factors 1, 2, 4
HEAD_CHANNELS = 64
CONTEXT_DIM = 1024
TIME_EMBED_DIM = 4 * MODEL_CHANNELS  # openaimodel.UNetModel: time_embed_dim = model_channels * 4
GEGLU_MULT = 4                       # attention.FeedForward(mult=4, glu=True)
NORM_GROUPS = 32                     # GroupNorm32 / Normalize (weights are per channel either way)

TEXT_TOKENS = 77
TEXT_VOCAB = 49408
TEXT_WIDTH = 1024
TEXT_HEADS = 16
TEXT_LAYERS = 24
TEXT_LAYERS_RUN = TEXT_LAYERS - 1    # penultimate-layer output
TEXT_MLP = 4 * TEXT_WIDTH
TEXT_EMBED_DIM = 1024                # CLIP joint embedding width (text_projection), unused by SD

VAE_CH = 128
VAE_CH_MULT = (1, 2, 4, 4)
VAE_RES_BLOCKS = 2


# ---- UNet (trainable) -----------------------------------------------------------------------

def unet_res_block(prefix, c_in, c_out, edge, b):
    """openaimodel.ResBlock: GN+SiLU, 3x3 conv, + Linear(SiLU(emb)), GN+SiLU, (dropout 0), 3x3 conv,
    1x1 skip conv when the width changes. Checkpointed as a whole (use_checkpoint)."""
    n_in, n_out = c_in * edge * edge, c_out * edge * edge
    L = lambda name, kind, cost, saved, rec=True: make_layer(prefix + name, kind, cost, TRAINABLE, saved, rec)
    E = lambda op, elements: elementwise(op, elements, b)
    N = lambda op, elements, channels: norm(op, elements, channels, b)
    layers = [
        # GroupNorm output (SiLU input) and SiLU output (conv1 weight-gradient input)
        L("norm1", "norm", N("groupnorm", n_in, c_in) + E("silu", n_in), 2 * n_in * b),
        # conv1 + the broadcast time-embedding add; the sum is norm2's input
        L("conv1", "conv", conv2d(c_in, c_out, 3, edge, edge, bias=True) + E("broadcast_add", n_out), n_out * b),
        L("emb-proj", "linear", E("silu", TIME_EMBED_DIM) + linear(1, TIME_EMBED_DIM, c_out, bias=True),
          TIME_EMBED_DIM * b),
        L("norm2", "norm", N("groupnorm", n_out, c_out) + E("silu", n_out), 2 * n_out * b),
        L("conv2", "conv", conv2d(c_out, c_out, 3, edge, edge, bias=True), 0),
    ]
    if c_in != c_out:
        layers.append(L("skip", "conv", conv2d(c_in, c_out, 1, edge, edge, bias=True), 0))
    layers.append(L("residual", "elementwise", E("add", n_out), n_out * b, rec=False))
    return layers


def unet_spatial_transformer(prefix, c, edge, b):
    """attention.SpatialTransformer (linear projections, depth 1). Only the BasicTransformerBlock is
    checkpointed; the norm, projections and the outer residual stay outside the checkpoint.
    Tensor parallelism on the block's three sub-blocks (self-attention, cross-attention, GEGLU
    feed-forward), each with n*c-element input and output; proj_in/proj_out stay replicated."""
    n = edge * edge                       # tokens
    heads = c // HEAD_CHANNELS
    f = GEGLU_MULT * c
    k = TEXT_TOKENS
    lse = heads * n * FP32_BYTES          # log-sum-exp per head and query
    x = c * n * b                         # a sub-block's input and output
    L = lambda name, kind, cost, saved, rec: make_layer(prefix + name, kind, cost, TRAINABLE, saved, rec)
    B = lambda name, kind, cost, saved, rec=True: L("block." + name, kind, cost, saved, rec)
    E = lambda op, elements: elementwise(op, elements, b)
    N = lambda op, elements, channels: norm(op, elements, channels, b)
    return [
        L("norm-in", "norm", N("groupnorm", c * n, c), c * n * b, False),
        L("proj-in", "linear", linear(n, c, c, bias=True), c * n * b, False),
        B("norm1", "norm", N("layernorm", c * n, c), c * n * b),
        column_parallel(B("attn1.qkv", "linear", linear(n, c, 3 * c, bias=False), 3 * c * n * b), x),
        context_parallel_kv(column_parallel(
            B("attn1.core", "attention", attention_core(n, n, heads, HEAD_CHANNELS), c * n * b + lse)),
            n, heads, HEAD_CHANNELS, b),
        row_parallel(B("attn1.out", "linear", linear(n, c, c, bias=True), 0), x),
        B("attn1-residual", "elementwise", E("add", c * n), c * n * b),
        B("norm2", "norm", N("layernorm", c * n, c), c * n * b),
        column_parallel(B("attn2.q", "linear", linear(n, c, c, bias=False), c * n * b), x),
        # K/V of the 77-token context: split by heads; their input (the replicated context of a frozen
        # encoder) needs no gradient, so no all-reduce
        column_parallel(B("attn2.kv", "linear", linear(k, CONTEXT_DIM, 2 * c, bias=False), 2 * c * k * b)),
        # cross-attention: every context-parallel rank computes the context's K/V itself, nothing to gather
        column_parallel(B("attn2.core", "attention", attention_core(n, k, heads, HEAD_CHANNELS), c * n * b + lse)),
        row_parallel(B("attn2.out", "linear", linear(n, c, c, bias=True), 0), x),
        B("attn2-residual", "elementwise", E("add", c * n), c * n * b),
        B("norm3", "norm", N("layernorm", c * n, c), c * n * b),
        # both GEGLU halves; the split takes matching columns of each half, so GEGLU stays local
        column_parallel(B("ff.proj", "linear", linear(n, c, 2 * f, bias=True), 2 * f * n * b), x),
        column_parallel(B("ff.geglu", "activation", E("geglu", f * n), f * n * b)),
        row_parallel(B("ff.out", "linear", linear(n, f, c, bias=True), 0), x),
        B("ff-residual", "elementwise", E("add", c * n), c * n * b, rec=False),
        L("proj-out", "linear", linear(n, c, c, bias=True), 0, False),
        L("residual", "elementwise", E("add", c * n), c * n * b, False),
    ]


def unet(b):
    """openaimodel.UNetModel.__init__/forward, channel bookkeeping included."""
    edge = IMAGE_SIZE // LATENT_DOWNSCALE
    c = MODEL_CHANNELS
    T = lambda name, kind, cost, saved: make_layer("unet." + name, kind, cost, TRAINABLE, saved, recomputed=False)
    E = lambda op, elements: elementwise(op, elements, b)
    N = lambda op, elements, channels: norm(op, elements, channels, b)
    layers = [
        # sinusoidal embedding -> Linear -> SiLU -> Linear; the embedding feeds every ResBlock
        T("time-embed.fc1", "linear", E("sinusoid", c) + linear(1, c, TIME_EMBED_DIM, bias=True)
          + E("silu", TIME_EMBED_DIM), (c + 2 * TIME_EMBED_DIM) * b),
        T("time-embed.fc2", "linear", linear(1, TIME_EMBED_DIM, TIME_EMBED_DIM, bias=True), TIME_EMBED_DIM * b),
        T("conv-in", "conv", conv2d(LATENT_CHANNELS, c, 3, edge, edge, bias=True), c * edge * edge * b),
    ]
    skip_channels = [c]
    for level, mult in enumerate(CHANNEL_MULT):
        for i in range(RES_BLOCKS):
            prefix = "unet.down.%d." % level
            layers += unet_res_block(prefix + "res%d." % i, c, mult * MODEL_CHANNELS, edge, b)
            c = mult * MODEL_CHANNELS
            if level in ATTENTION_LEVELS:
                layers += unet_spatial_transformer(prefix + "attn%d." % i, c, edge, b)
            skip_channels.append(c)
        if level != len(CHANNEL_MULT) - 1:
            # stride-2 3x3 conv (padding 1); its output is a skip connection and the next block's input
            conv = conv2d(c, c, 3, edge, edge, stride=2, bias=True)
            edge //= 2
            layers.append(T("down.%d.downsample" % level, "conv", conv, c * edge * edge * b))
            skip_channels.append(c)

    layers += unet_res_block("unet.mid.res0.", c, c, edge, b)
    layers += unet_spatial_transformer("unet.mid.attn.", c, edge, b)
    layers += unet_res_block("unet.mid.res1.", c, c, edge, b)

    for level in reversed(range(len(CHANNEL_MULT))):
        mult = CHANNEL_MULT[level]
        for i in range(RES_BLOCKS + 1):
            prefix = "unet.up.%d." % level
            c_cat = c + skip_channels.pop()
            # torch.cat of the running features and the skip: a new tensor, kept as the checkpointed
            # ResBlock's input
            layers.append(T("up.%d.concat%d" % (level, i), "elementwise", data_movement("copy", c_cat * edge * edge, b),
                            c_cat * edge * edge * b))
            layers += unet_res_block(prefix + "res%d." % i, c_cat, mult * MODEL_CHANNELS, edge, b)
            c = mult * MODEL_CHANNELS
            if level in ATTENTION_LEVELS:
                layers += unet_spatial_transformer(prefix + "attn%d." % i, c, edge, b)
        if level != 0:
            upsample = data_movement("upsample_nearest2x", c * edge * edge, b)
            edge *= 2
            # nearest 2x upsampling, then 3x3 conv; the upsampled tensor is the conv's weight-gradient input
            layers.append(T("up.%d.upsample" % level, "conv", upsample + conv2d(c, c, 3, edge, edge, bias=True),
                            c * edge * edge * b))
    assert not skip_channels
    n = c * edge * edge
    layers += [
        T("out.norm", "norm", N("groupnorm", n, c) + E("silu", n), 2 * n * b),
        T("out.conv", "conv", conv2d(c, LATENT_CHANNELS, 3, edge, edge, bias=True), 0),
    ]
    return layers


# ---- frozen encoders (forward only) ------------------------------------------------------------

def text_encoder(b):
    """OpenCLIP text transformer run to its penultimate block; pre-LN blocks with causal attention."""
    s, h, f = TEXT_TOKENS, TEXT_WIDTH, TEXT_MLP
    F = lambda name, kind, cost, saved=0: make_layer("text-encoder." + name, kind, cost, FORWARD_ONLY, saved, False)
    E = lambda op, elements: elementwise(op, elements, b)
    N = lambda op, elements, channels: norm(op, elements, channels, b)
    # token lookup (a gather), plus the positional embedding, a parameter added to every sequence
    layers = [F("token-embedding", "embedding",
                embedding(TEXT_VOCAB, h, s, b) + embedding(s, h) + E("add", s * h))]
    # Tensor parallelism as the UNet's blocks, forward only: the row layers' all-reduces happen, the
    # column layers' backward all-reduces do not (no input gradient is computed).
    x = s * h * b
    for i in range(TEXT_LAYERS_RUN):
        p = "blocks.%d." % i
        layers += [
            F(p + "ln1", "norm", N("layernorm", s * h, h)),
            column_parallel(F(p + "attn.qkv", "linear", linear(s, h, 3 * h, bias=True))),
            context_parallel_kv(column_parallel(
                F(p + "attn.core", "attention", attention_core(s, s, TEXT_HEADS, h // TEXT_HEADS, causal=True))),
                s, TEXT_HEADS, h // TEXT_HEADS, b),
            row_parallel(F(p + "attn.out", "linear", linear(s, h, h, bias=True)), x),
            F(p + "attn-residual", "elementwise", E("add", s * h)),
            F(p + "ln2", "norm", N("layernorm", s * h, h)),
            column_parallel(F(p + "mlp.fc", "linear", linear(s, h, f, bias=True))),
            column_parallel(F(p + "mlp.gelu", "activation", E("gelu", s * f))),
            row_parallel(F(p + "mlp.proj", "linear", linear(s, f, h, bias=True)), x),
            F(p + "mlp-residual", "elementwise", E("add", s * h)),
        ]
    unused_block = (N("layernorm", s * h, h) + linear(s, h, 3 * h, True) + linear(s, h, h, True)
                    + N("layernorm", s * h, h) + linear(s, h, f, True) + linear(s, f, h, True))
    layers += [
        # The context is the only tensor of the encoder that is kept: the UNet's cross-attention
        # K/V projections (trainable) need it for their weight gradients.
        F("final-norm", "norm", N("layernorm", s * h, h), s * h * b),
        # loaded but not run: the last block (penultimate-layer output) and the CLIP projection + logit scale
        unused_weights_layer("text-encoder.blocks.%d" % TEXT_LAYERS_RUN, unused_block.params),
        unused_weights_layer("text-encoder.text-projection", TEXT_WIDTH * TEXT_EMBED_DIM + 1),
    ]
    return layers


def vae_res_block(prefix, c_in, c_out, edge, b):
    """diffusionmodules.model.ResnetBlock without time embedding (temb_channels 0)."""
    n_in, n_out = c_in * edge * edge, c_out * edge * edge
    F = lambda name, kind, cost: make_layer(prefix + name, kind, cost, FORWARD_ONLY, 0, False)
    E = lambda op, elements: elementwise(op, elements, b)
    N = lambda op, elements, channels: norm(op, elements, channels, b)
    layers = [
        F("norm1", "norm", N("groupnorm", n_in, c_in) + E("silu", n_in)),
        F("conv1", "conv", conv2d(c_in, c_out, 3, edge, edge, bias=True)),
        F("norm2", "norm", N("groupnorm", n_out, c_out) + E("silu", n_out)),
        F("conv2", "conv", conv2d(c_out, c_out, 3, edge, edge, bias=True)),
    ]
    if c_in != c_out:
        layers.append(F("nin-shortcut", "conv", conv2d(c_in, c_out, 1, edge, edge, bias=True)))
    layers.append(F("residual", "elementwise", E("add", n_out)))
    return layers


def vae_encoder(b=bytes_per_element(PRECISION)):
    """diffusionmodules.model.Encoder + AutoencoderKL.quant_conv + posterior sample, 512x512x3 -> 64x64x4."""
    edge = IMAGE_SIZE
    F = lambda name, kind, cost: make_layer("vae-encoder." + name, kind, cost, FORWARD_ONLY, 0, False)
    E = lambda op, elements: elementwise(op, elements, b)
    N = lambda op, elements, channels: norm(op, elements, channels, b)
    layers = [F("conv-in", "conv", conv2d(3, VAE_CH, 3, edge, edge, bias=True))]
    in_mult = (1,) + VAE_CH_MULT
    c = VAE_CH
    for level, mult in enumerate(VAE_CH_MULT):
        c_out = VAE_CH * mult
        assert c == VAE_CH * in_mult[level]
        for i in range(VAE_RES_BLOCKS):
            layers += vae_res_block("vae-encoder.down.%d.block%d." % (level, i), c, c_out, edge, b)
            c = c_out
        if level != len(VAE_CH_MULT) - 1:
            # 3x3 stride-2 conv after asymmetric (0, 1, 0, 1) padding halves the edge; the kernel shape
            # says padding 1 on both sides, which gives the same output edge and FLOPs
            conv = conv2d(c, c, 3, edge, edge, stride=2, padding=1, bias=True)
            edge //= 2
            layers.append(F("down.%d.downsample" % level, "conv", conv))
    n = edge * edge
    layers += vae_res_block("vae-encoder.mid.block1.", c, c, edge, b)
    layers += [
        # AttnBlock: GroupNorm, 1x1-conv q/k/v, one head of width c over all positions, 1x1-conv out
        F("mid.attn.norm", "norm", N("groupnorm", c * n, c)),
        F("mid.attn.qkv", "conv", conv2d(c, 3 * c, 1, edge, edge, bias=True)),
        F("mid.attn.core", "attention", attention_core(n, n, 1, c, fused=False, elem_bytes=b)),   # vanilla AttnBlock
        F("mid.attn.proj-out", "conv", conv2d(c, c, 1, edge, edge, bias=True)),
        F("mid.attn.residual", "elementwise", E("add", c * n)),
    ]
    layers += vae_res_block("vae-encoder.mid.block2.", c, c, edge, b)
    moments = 2 * LATENT_CHANNELS    # double_z: mean and log-variance
    layers += [
        F("norm-out", "norm", N("groupnorm", c * n, c) + E("silu", c * n)),
        F("conv-out", "conv", conv2d(c, moments, 3, edge, edge, bias=True)),
        F("quant-conv", "conv", conv2d(moments, moments, 1, edge, edge, bias=True)),
        F("sample", "elementwise", E("gaussian_sample", LATENT_CHANNELS * n)),
    ]
    return layers


def stable_diffusion():
    precision = PRECISION
    b = bytes_per_element(precision)
    E = lambda op, elements: elementwise(op, elements, b)
    N = lambda op, elements, channels: norm(op, elements, channels, b)
    latent = LATENT_CHANNELS * (IMAGE_SIZE // LATENT_DOWNSCALE) ** 2
    # No VAE encoder: MLPerf's reference trains on precomputed VAE moments
    # (laion400m-filtered-download-moments.sh, first_stage_key: npy), so it never runs in a step.
    # vae_encoder() stays for what-if traces of pipelines that encode images online.
    layers = text_encoder(b)
    # forward diffusion q(x_t | x_0) (Ho et al. 2020, eq. 4); x_t is conv-in's weight-gradient input
    layers.append(make_layer("diffusion.add-noise", "elementwise", E("noise_mix", latent), FORWARD_ONLY,
                             latent * b, False))
    layers += unet(b)
    # epsilon-prediction MSE (Ho et al. 2020, eq. 14); keeps prediction - target
    layers.append(make_layer("loss", "loss", E("mse", latent), TRAINABLE, latent * b, False))
    return Workload(
        name="stable-diffusion", benchmark="stable_diffusion",
        description=("Stable Diffusion v2 at 512x512: trainable UNet (865M) on 64x64x4 latents with 77x1024 "
                     "OpenCLIP ViT-H/14 context; frozen forward-only OpenCLIP text encoder (penultimate layer) "
                     "(latents from precomputed VAE moments, as MLPerf's reference); memory-efficient attention; fp16."),
        precision=precision, sample="image", optimizer="adam", layers=tuple(layers))
