"""SigmoidCrossEntropyWithLogitsGradV2 kernel entry. The tiling key picks the dtype (0 half,
1 float, 2 bfloat16_t); the tiling flags has_weight / has_pos_weight pick one of the four
template variants. An absent optional input arrives as a null GM_ADDR and is never touched.

(`RunVariant<T>(...)` in C++ is `RunVariant(T, ...)` here: a function template's argument.)
"""

from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync

from .sigmoid_cross_entropy_with_logits_grad_v2_kernel import (
    KernelSigmoidCrossEntropyWithLogitsGradV2,
)
from .sigmoid_cross_entropy_with_logits_grad_v2_tiling_data import (
    SigmoidCrossEntropyWithLogitsGradV2TilingData,
)
from .sigmoid_cross_entropy_with_logits_grad_v2_tiling_key import (
    SIGMOID_CE_GRAD_V2_TILING_KEY_BF16,
    SIGMOID_CE_GRAD_V2_TILING_KEY_FLOAT,
    SIGMOID_CE_GRAD_V2_TILING_KEY_HALF,
)


def RunVariant(T, predict, target, dout, weight, posWeight, gradient, tilingData):
    if tilingData.has_weight == 1 and tilingData.has_pos_weight == 1:
        op = KernelSigmoidCrossEntropyWithLogitsGradV2[T, True, True]()
        op.Init(predict, target, dout, weight, posWeight, gradient, tilingData)
        op.Process()
    elif tilingData.has_weight == 1:
        op = KernelSigmoidCrossEntropyWithLogitsGradV2[T, True, False]()
        op.Init(predict, target, dout, weight, posWeight, gradient, tilingData)
        op.Process()
    elif tilingData.has_pos_weight == 1:
        op = KernelSigmoidCrossEntropyWithLogitsGradV2[T, False, True]()
        op.Init(predict, target, dout, weight, posWeight, gradient, tilingData)
        op.Process()
    else:
        op = KernelSigmoidCrossEntropyWithLogitsGradV2[T, False, False]()
        op.Init(predict, target, dout, weight, posWeight, gradient, tilingData)
        op.Process()


@kernel_sync("auto")  # CANN's default: the compiler inserts the V->V and scalar syncs
def sigmoid_cross_entropy_with_logits_grad_v2(predict, target, dout, weight, posWeight, gradient,
                                              workspace, tiling):
    REGISTER_TILING_DEFAULT(SigmoidCrossEntropyWithLogitsGradV2TilingData)
    tilingData = GET_TILING_DATA(tiling)
    if TILING_KEY_IS(SIGMOID_CE_GRAD_V2_TILING_KEY_HALF):
        RunVariant(half, predict, target, dout, weight, posWeight, gradient, tilingData)
    elif TILING_KEY_IS(SIGMOID_CE_GRAD_V2_TILING_KEY_FLOAT):
        RunVariant(float, predict, target, dout, weight, posWeight, gradient, tilingData)
    elif TILING_KEY_IS(SIGMOID_CE_GRAD_V2_TILING_KEY_BF16):
        RunVariant(bfloat16_t, predict, target, dout, weight, posWeight, gradient, tilingData)
