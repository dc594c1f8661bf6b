"""ResNet-50 v1.5 and the bottleneck backbone it shares with RetinaNet's ResNeXt-50 32x4d.

Architecture: He et al. 2016, "Deep Residual Learning for Image Recognition", Table 1 (50-layer:
bottleneck blocks (3, 4, 6, 3), planes 64/128/256/512, expansion 4, 7x7/2 stem + 3x3/2 max pool).
v1.5 puts the stride-2 of a downsampling block in the 3x3 conv instead of the first 1x1
(torchvision.models.resnet.Bottleneck docstring; NVIDIA DeepLearningExamples "ResNet50 v1.5";
MLPerf Training reference image_classification uses v1.5).
ResNeXt: Xie et al. 2017, "Aggregated Residual Transformations", Table 1 (32x4d: groups 32, base
width 4); torchvision Bottleneck: width = planes * (width_per_group / 64) * groups.

Kernels: NVIDIA's MLPerf ResNet-50 submissions (MXNet with cuDNN NHWC fused ops: the convolution
produces the BatchNorm statistics in its epilogue, and BN apply + ReLU run in the next convolution's
prologue or in a fused BN-add-ReLU) and its RetinaNet submissions (apex.contrib.conv_bias_relu's
ConvFrozenScaleBiasReLU: FrozenBatchNorm's scale and shift and the ReLU in the conv epilogue) run no
kernel of their own for BN and ReLU: they are `fused: true` after the conv of their layer. The residual
add, which the ResNet-50 submissions also fold into the BN-add-ReLU of conv3, is a layer of its own in
this trace and a fused kernel cannot start a layer: the add is an unfused kernel and its ReLU is fused
into it. Max pooling and average pooling are kernels of their own.
"""

from building_blocks import (FORWARD_ONLY, TRAINABLE, Workload, bytes_per_element, conv2d, conv_out_size,
                             elementwise, elementwise_op, linear, make_layer, norm)

STEM_CHANNELS = 64              # He et al. 2016, Table 1, conv1
STAGE_BLOCKS = (3, 4, 6, 3)     # He et al. 2016, Table 1, 50-layer
STAGE_PLANES = (64, 128, 256, 512)
EXPANSION = 4                   # bottleneck output = 4 x planes
IMAGENET_CLASSES = 1000


def _conv_bn(name, c_in, c_out, kernel, stride, size_in, *, groups, relu, bn, mode, elem_bytes,
             recomputed, extra_saved_bytes=0):
    """conv (no bias) + BatchNorm (+ ReLU) as one layer. Saved for backward: the conv output when BN
    uses batch statistics (BN's backward needs its input; a frozen BN is an affine map and does not),
    and the ReLU output (ReLU's mask and the next conv's weight-gradient input).
    Kernels: the conv, then BN and ReLU fused into it (module docstring)."""
    size_out = conv_out_size(size_in, kernel, stride, padding=kernel // 2)
    out = c_out * size_out * size_out
    conv = conv2d(c_in, c_out, kernel, size_in, size_in, stride=stride, padding=kernel // 2, groups=groups)
    assert conv.macs == size_out * size_out * c_out * (c_in // groups) * kernel * kernel, name  # same output edge
    cost = conv + norm(bn, out, c_out, elem_bytes, fused=True)
    if relu:
        cost = cost + elementwise("relu", out, elem_bytes, fused=True)
    saved = 0
    if mode != FORWARD_ONLY:
        saved = (out if bn == "batchnorm" else 0) + (out if relu else 0)
    return make_layer(name, "conv", cost, mode, saved * elem_bytes + extra_saved_bytes, recomputed), size_out


def bottleneck_backbone(prefix, image_size, *, groups, width_per_group, stem_mode, stage_modes, bn,
                        elem_bytes):
    """Stem + four bottleneck stages. Returns (layers, stage outputs [(channels, edge)] for C2..C5).

    A forward-only part keeps no activations, except the output that a trainable consumer needs for
    its weight gradient (the last output before the first trainable stage)."""
    layers = []
    first_trainable_stage = next((i for i, m in enumerate(stage_modes) if m != FORWARD_ONLY), None)

    stem_saved_input = 3 * image_size * image_size * elem_bytes if stem_mode != FORWARD_ONLY else 0
    stem, size = _conv_bn(prefix + "conv1", 3, STEM_CHANNELS, 7, 2, image_size, groups=1, relu=True, bn=bn,
                          mode=stem_mode, elem_bytes=elem_bytes, recomputed=False,
                          extra_saved_bytes=stem_saved_input)
    layers.append(stem)

    pool_size = conv_out_size(size, 3, 2, 1)
    pool_out = STEM_CHANNELS * pool_size * pool_size
    # 8 comparisons per 3x3 window; per output it reads the 4 inputs of its stride-2 cell and writes 1
    pool_cost = elementwise_op(pool_out, 3 * 3 - 1, (2 * 2 + 1) * elem_bytes)
    keep_pool_out = stem_mode != FORWARD_ONLY or first_trainable_stage == 0
    layers.append(make_layer(prefix + "maxpool", "pool", pool_cost, stem_mode,
                             pool_out * elem_bytes if keep_pool_out else 0, recomputed=False))
    size = pool_size

    c_in = STEM_CHANNELS
    outputs = []
    for stage, (blocks, planes, mode) in enumerate(zip(STAGE_BLOCKS, STAGE_PLANES, stage_modes)):
        width = int(planes * (width_per_group / 64.0)) * groups
        c_out = planes * EXPANSION
        for block in range(blocks):
            p = "%slayer%d.%d." % (prefix, stage + 1, block)
            stride = 2 if (block == 0 and stage > 0) else 1
            common = dict(bn=bn, mode=mode, elem_bytes=elem_bytes, recomputed=True)
            l1, _ = _conv_bn(p + "conv1", c_in, width, 1, 1, size, groups=1, relu=True, **common)
            l2, size_out = _conv_bn(p + "conv2", width, width, 3, stride, size, groups=groups, relu=True, **common)
            l3, _ = _conv_bn(p + "conv3", width, c_out, 1, 1, size_out, groups=1, relu=False, **common)
            layers += [l1, l2, l3]
            if block == 0:
                ds, _ = _conv_bn(p + "downsample", c_in, c_out, 1, stride, size, groups=1, relu=False, **common)
                layers.append(ds)
            out = c_out * size_out * size_out
            feeds_trainable = (stage + 1 == first_trainable_stage and block == blocks - 1)
            keep = mode != FORWARD_ONLY or feeds_trainable
            # the add (unfused) and the ReLU fused into it (module docstring)
            layers.append(make_layer(p + "residual", "elementwise",
                                     elementwise("add", out, elem_bytes)
                                     + elementwise("relu", out, elem_bytes, fused=True), mode,
                                     out * elem_bytes if keep else 0, recomputed=False))
            c_in, size = c_out, size_out
        outputs.append((c_out, size))
    return layers, outputs


def resnet50():
    """MLPerf Training `resnet`: ResNet-50 v1.5 on 224x224 ImageNet crops, 1000 classes.

    MLPerf's reference optimizer is LARS (You et al. 2017), a per-layer-scaled SGD with momentum;
    its state is one momentum buffer per weight, so it is modelled as sgd_momentum."""
    precision = "bf16"
    b = bytes_per_element(precision)
    layers, outputs = bottleneck_backbone("", 224, groups=1, width_per_group=64, stem_mode=TRAINABLE,
                                          stage_modes=(TRAINABLE,) * 4, bn="batchnorm", elem_bytes=b)
    channels, size = outputs[-1]
    # global average pool: per output channel size*size adds and a divide; reads size*size inputs, writes 1
    layers.append(make_layer("avgpool", "pool", elementwise_op(channels, size * size + 1, (size * size + 1) * b),
                             TRAINABLE, channels * b, recomputed=False))
    layers.append(make_layer("fc", "linear", linear(1, channels, IMAGENET_CLASSES, bias=True), TRAINABLE,
                             0, recomputed=False))
    # Cross-entropy keeps the log-probabilities for its backward.
    layers.append(make_layer("loss", "loss", elementwise("log_softmax", IMAGENET_CLASSES, b), TRAINABLE,
                             IMAGENET_CLASSES * b, recomputed=False))
    return Workload(
        name="resnet50", benchmark="resnet",
        description=("ResNet-50 v1.5 (stride 2 in the 3x3 conv), 224x224 ImageNet, 1000 classes; one layer per "
                     "conv+BN(+ReLU) and per residual add. MLPerf trains with LARS, modelled as SGD with momentum "
                     "(same optimizer state)."),
        precision=precision, sample="image", optimizer="sgd_momentum", layers=tuple(layers))
