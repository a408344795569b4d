"""CrossEntropyLoss kernel entry: the tiling key picks the dtype (1 bfloat16_t, 2 half,
3 float). zloss and lse_for_zloss are passed and never touched (zloss is not implemented on
A2), as in the public operator. KERNEL_TYPE_MIX_AIV_1_0, as the public entry declares: SyncAll
needs it in a pure-vector kernel.
"""

from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync

from .cross_entropy_loss_kernel import KernelCrossEntropyLoss
from .cross_entropy_loss_tiling_data import CrossEntropyLossTilingData


@kernel_sync("auto")  # CANN's default: the compiler inserts the V->V and scalar syncs
def cross_entropy_loss(input, target, weight, loss, logProb, zloss, lseForZloss, workspace, tiling):
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0)
    REGISTER_TILING_DEFAULT(CrossEntropyLossTilingData)
    tilingData = GET_TILING_DATA(tiling)
    if TILING_KEY_IS(1):
        op = KernelCrossEntropyLoss[bfloat16_t]()
        op.Init(input, target, weight, loss, logProb, workspace, tilingData)
        op.Process()
    elif TILING_KEY_IS(2):
        op = KernelCrossEntropyLoss[half]()
        op.Init(input, target, weight, loss, logProb, workspace, tilingData)
        op.Process()
    elif TILING_KEY_IS(3):
        op = KernelCrossEntropyLoss[float]()
        op.Init(input, target, weight, loss, logProb, workspace, tilingData)
        op.Process()
