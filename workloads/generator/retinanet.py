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
"""

from building_blocks import (FORWARD_ONLY, TRAINABLE, Workload, bytes_per_element, conv2d, conv_out_size,
                             elementwise, make_layer)
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

    def conv_layer(name, c_in, c_out, kernel, edge, cost_extra=None, saved_elements=0):
        cost = conv2d(c_in, c_out, kernel, edge, edge, bias=True)
        if cost_extra is not None:
            cost = cost + cost_extra
        return make_layer(name, "conv", cost, TRAINABLE, saved_elements * b, recomputed=False)

    # FPN top-down path (Lin et al. 2017b, "Feature Pyramid Networks", Sec. 3; torchvision
    # FeaturePyramidNetwork): 1x1 lateral convs, nearest 2x upsampling + add, 3x3 output convs.
    # Each kept tensor is the next conv's weight-gradient input.
    layers += [
        conv_layer("fpn.inner5", c5, c, 1, s5, saved_elements=c * s5 * s5),
        conv_layer("fpn.inner4", c4, c, 1, s4, elementwise("add", c * s4 * s4), c * s4 * s4),
        conv_layer("fpn.inner3", c3, c, 1, s3, elementwise("add", c * s3 * s3), c * s3 * s3),
        conv_layer("fpn.layer5", c, c, 3, s5, saved_elements=c * s5 * s5),
        conv_layer("fpn.layer4", c, c, 3, s4, saved_elements=c * s4 * s4),
        conv_layer("fpn.layer3", c, c, 3, s3, saved_elements=c * s3 * s3),
    ]
    s6 = conv_out_size(s5, 3, 2, 1)
    s7 = conv_out_size(s6, 3, 2, 1)
    layers += [
        # P6 is kept for the heads, ReLU(P6) for P7's weight gradient
        conv_layer("fpn.p6", c, c, 3, s6, elementwise("relu", c * s6 * s6), 2 * c * s6 * s6),
        conv_layer("fpn.p7", c, c, 3, s7, saved_elements=c * s7 * s7),
    ]

    # Heads share weights across P3-P7, so FLOPs scale with all positions and weights count once.
    positions = sum(edge * edge for edge in (s3, s4, s5, s6, s7))
    anchors = positions * ANCHORS_PER_POSITION
    for head, outputs in (("cls", ANCHORS_PER_POSITION * CLASSES), ("box", ANCHORS_PER_POSITION * BOX_COORDS)):
        for i in range(HEAD_CONVS):
            cost = conv2d(c, c, 3, 1, positions, bias=True) + elementwise("relu", c * positions)
            layers.append(make_layer("head.%s.conv%d" % (head, i + 1), "conv", cost, TRAINABLE,
                                     c * positions * b, recomputed=False))
        # the raw outputs are the loss's backward input
        layers.append(make_layer("head.%s.output" % head, "conv", conv2d(c, outputs, 3, 1, positions, bias=True),
                                 TRAINABLE, outputs * positions * b, recomputed=False))
    # sigmoid focal loss over every anchor and class, L1 box loss; the class probabilities are kept
    loss_cost = elementwise("sigmoid_focal", anchors * CLASSES) + elementwise("l1", anchors * BOX_COORDS)
    layers.append(make_layer("loss", "loss", loss_cost, TRAINABLE, anchors * CLASSES * b, recomputed=False))

    return Workload(
        name="retinanet", benchmark="retinanet",
        description=("RetinaNet, ResNeXt-50 32x4d + FPN (P3-P7), 800x800 OpenImages-MLPerf, 264 classes, 9 anchors; "
                     "torchvision defaults of the MLPerf reference: conv1 and layer1 frozen (trainable backbone "
                     "layers = 3), FrozenBatchNorm2d in the backbone; Adam; fp16 autocast."),
        precision=precision, sample="image", optimizer="adam", layers=tuple(layers))
