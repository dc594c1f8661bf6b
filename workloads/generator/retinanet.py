"""RetinaNet with a ResNeXt-50 32x4d FPN backbone (MLPerf Training `retinanet`, logged as `ssd`).

Model: Lin et al. 2017, "Focal Loss for Dense Object Detection", Sec. 4 and Fig. 3 (FPN levels
P3-P7 with 256 channels, heads of four 3x3 conv + ReLU layers and a final 3x3 conv, A = 9 anchors
per position, focal loss). Implementation and settings: MLPerf Training reference
single_stage_detector (model/retinanet.py, a copy of torchvision's RetinaNet; train.py):
backbone resnext50_32x4d, FPN on C3-C5 with LastLevelP6P7(256, 256) (P6 from P5), classification
and box heads without GroupNorm, 264 classes (MLPerf OpenImages subset), fixed 800x800 input,
Adam, --trainable-backbone-layers 3 (the torchvision default for a pretrained backbone).
With an ImageNet-pretrained backbone torchvision uses FrozenBatchNorm2d everywhere in the
backbone and freezes conv1 and layer1 (only layer2-4 train when trainable layers = 3).
Kernels: the backbone's as in resnet_family (FrozenBatchNorm and ReLU fused into the conv). The FPN's
nearest upsampling is a kernel of 0 FLOP before its add; the FPN adds, P6's ReLU and the heads' ReLUs
are unfused kernels (unsure whether NVIDIA's submissions fuse the heads' conv + bias + ReLU as they do
the backbone's). The heads run on each of the five levels with shared weights: one conv kernel per
level (torchvision RetinaNetHead loops over the levels).
"""

from building_blocks import (FORWARD_ONLY, TRAINABLE, Cost, Workload, bytes_per_element, conv2d, conv_out_size,
                             data_movement, elementwise, make_layer, shared_weights)
from resnet_family import bottleneck_backbone

IMAGE_SIZE = 800
FPN_CHANNELS = 256
ANCHORS_PER_POSITION = 9     # 3 scales x 3 aspect ratios (Lin et al. 2017, Sec. 4)
CLASSES = 264                # MLPerf OpenImages subset
BOX_COORDS = 4
HEAD_CONVS = 4


def retinanet():
    precision = "fp16"       # the MLPerf reference trains with torch.cuda.amp (--amp), i.e. fp16 autocast
    b = bytes_per_element(precision)
    c = FPN_CHANNELS
    layers, stage_outputs = bottleneck_backbone(
        "backbone.", IMAGE_SIZE, groups=32, width_per_group=4, stem_mode=FORWARD_ONLY,
        stage_modes=(FORWARD_ONLY, TRAINABLE, TRAINABLE, TRAINABLE), bn="frozen_batchnorm", elem_bytes=b)
    (c3, s3), (c4, s4), (c5, s5) = stage_outputs[1:]

    def conv_layer(name, c_in, c_out, kernel, edge_in, cost_extra=None, saved_elements=0, stride=1):
        cost = conv2d(c_in, c_out, kernel, edge_in, edge_in, stride=stride, bias=True)
        if cost_extra is not None:
            cost = cost + cost_extra
        return make_layer(name, "conv", cost, TRAINABLE, saved_elements * b, recomputed=False)

    def top_down(edge_above, edge):
        """nearest 2x upsampling of the level above, then the add of the lateral (this conv's output)"""
        assert edge == 2 * edge_above
        return data_movement("upsample_nearest2x", c * edge_above * edge_above, b) + elementwise("add", c * edge * edge, b)

    # FPN top-down path (Lin et al. 2017b, "Feature Pyramid Networks", Sec. 3; torchvision
    # FeaturePyramidNetwork): 1x1 lateral convs, nearest 2x upsampling + add, 3x3 output convs.
    # Each kept tensor is the next conv's weight-gradient input.
    layers += [
        conv_layer("fpn.inner5", c5, c, 1, s5, saved_elements=c * s5 * s5),
        conv_layer("fpn.inner4", c4, c, 1, s4, top_down(s5, s4), c * s4 * s4),
        conv_layer("fpn.inner3", c3, c, 1, s3, top_down(s4, s3), c * s3 * s3),
        conv_layer("fpn.layer5", c, c, 3, s5, saved_elements=c * s5 * s5),
        conv_layer("fpn.layer4", c, c, 3, s4, saved_elements=c * s4 * s4),
        conv_layer("fpn.layer3", c, c, 3, s3, saved_elements=c * s3 * s3),
    ]
    s6 = conv_out_size(s5, 3, 2, 1)
    s7 = conv_out_size(s6, 3, 2, 1)
    layers += [
        # P6 is kept for the heads, ReLU(P6) for P7's weight gradient
        conv_layer("fpn.p6", c, c, 3, s5, elementwise("relu", c * s6 * s6, b), 2 * c * s6 * s6, stride=2),
        conv_layer("fpn.p7", c, c, 3, s6, saved_elements=c * s7 * s7, stride=2),
    ]

    # Heads share weights across P3-P7, so FLOPs scale with all positions and weights count once.
    levels = (s3, s4, s5, s6, s7)
    positions = sum(edge * edge for edge in levels)
    anchors = positions * ANCHORS_PER_POSITION

    def on_every_level(c_out, relu):
        """One 3x3 conv (+ ReLU) applied to every level with the same weights: a kernel per level."""
        cost = Cost()
        for level, edge in enumerate(levels):
            conv = conv2d(c, c_out, 3, edge, edge, bias=True)
            cost = cost + (conv if level == 0 else shared_weights(conv))
            if relu:
                cost = cost + elementwise("relu", c_out * edge * edge, b)
        return cost

    for head, outputs in (("cls", ANCHORS_PER_POSITION * CLASSES), ("box", ANCHORS_PER_POSITION * BOX_COORDS)):
        for i in range(HEAD_CONVS):
            layers.append(make_layer("head.%s.conv%d" % (head, i + 1), "conv", on_every_level(c, relu=True),
                                     TRAINABLE, c * positions * b, recomputed=False))
        # the raw outputs are the loss's backward input
        layers.append(make_layer("head.%s.output" % head, "conv", on_every_level(outputs, relu=False),
                                 TRAINABLE, outputs * positions * b, recomputed=False))
    # sigmoid focal loss over every anchor and class, L1 box loss; the class probabilities are kept
    loss_cost = elementwise("sigmoid_focal", anchors * CLASSES, b) + elementwise("l1", anchors * BOX_COORDS, b)
    layers.append(make_layer("loss", "loss", loss_cost, TRAINABLE, anchors * CLASSES * b, recomputed=False))

    return Workload(
        name="retinanet", benchmark="retinanet",
        description=("RetinaNet, ResNeXt-50 32x4d + FPN (P3-P7), 800x800 OpenImages-MLPerf, 264 classes, 9 anchors; "
                     "torchvision defaults of the MLPerf reference: conv1 and layer1 frozen (trainable backbone "
                     "layers = 3), FrozenBatchNorm2d in the backbone; Adam; fp16 autocast."),
        precision=precision, sample="image", optimizer="adam", layers=tuple(layers))
