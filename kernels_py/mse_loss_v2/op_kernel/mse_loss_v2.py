"""MSELossV2 kernel entry: the tiling key picks the reduction (none 10, sum 20, mean 30) and the
dtype (float 1, half 2, bfloat16_t 3). Sum and mean call the hard SyncAll, so the kernel is
declared mix with vector cores only (KERNEL_TYPE_MIX_AIV_1_0, the docs' mix(0,1)); the
public entry declares no kernel type.

(`RunNone<T>(...)` in C++ is `RunNone(T, ...)` here: a function template's argument.)
"""

from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync

from .mse_loss_v2_mean import MSELossV2Mean
from .mse_loss_v2_none import MSELossV2None
from .mse_loss_v2_sum import MSELossV2Sum
from .mse_loss_v2_tiling_data import MSELossV2TilingData
from .mse_loss_v2_tiling_key import (
    MSE_LOSS_V2_KEY_BF16,
    MSE_LOSS_V2_KEY_FLOAT,
    MSE_LOSS_V2_KEY_HALF,
    MSE_LOSS_V2_KEY_MEAN,
    MSE_LOSS_V2_KEY_NONE,
    MSE_LOSS_V2_KEY_SUM,
)


def RunNone(T, input, target, output, tilingData):
    op = MSELossV2None[T]()
    op.Init(input, target, output, tilingData)
    op.Process()


def RunSum(T, input, target, output, workspace, tilingData):
    op = MSELossV2Sum[T]()
    op.Init(input, target, output, workspace, tilingData)
    op.Process()


def RunMean(T, input, target, output, workspace, tilingData):
    op = MSELossV2Mean[T]()
    op.Init(input, target, output, workspace, tilingData)
    op.Process()


@kernel_sync("auto")  # CANN's default: the compiler inserts the V->V and scalar syncs
def mse_loss_v2(input, target, output, workspace, tiling):
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0)
    REGISTER_TILING_DEFAULT(MSELossV2TilingData)
    tilingData = GET_TILING_DATA(tiling)
    userWorkspace = GetUserWorkspace(workspace)
    if TILING_KEY_IS(MSE_LOSS_V2_KEY_NONE + MSE_LOSS_V2_KEY_FLOAT):
        RunNone(float, input, target, output, tilingData)
    elif TILING_KEY_IS(MSE_LOSS_V2_KEY_NONE + MSE_LOSS_V2_KEY_HALF):
        RunNone(half, input, target, output, tilingData)
    elif TILING_KEY_IS(MSE_LOSS_V2_KEY_NONE + MSE_LOSS_V2_KEY_BF16):
        RunNone(bfloat16_t, input, target, output, tilingData)
    elif TILING_KEY_IS(MSE_LOSS_V2_KEY_SUM + MSE_LOSS_V2_KEY_FLOAT):
        RunSum(float, input, target, output, userWorkspace, tilingData)
    elif TILING_KEY_IS(MSE_LOSS_V2_KEY_SUM + MSE_LOSS_V2_KEY_HALF):
        RunSum(half, input, target, output, userWorkspace, tilingData)
    elif TILING_KEY_IS(MSE_LOSS_V2_KEY_SUM + MSE_LOSS_V2_KEY_BF16):
        RunSum(bfloat16_t, input, target, output, userWorkspace, tilingData)
    elif TILING_KEY_IS(MSE_LOSS_V2_KEY_MEAN + MSE_LOSS_V2_KEY_FLOAT):
        RunMean(float, input, target, output, userWorkspace, tilingData)
    elif TILING_KEY_IS(MSE_LOSS_V2_KEY_MEAN + MSE_LOSS_V2_KEY_HALF):
        RunMean(half, input, target, output, userWorkspace, tilingData)
    elif TILING_KEY_IS(MSE_LOSS_V2_KEY_MEAN + MSE_LOSS_V2_KEY_BF16):
        RunMean(bfloat16_t, input, target, output, userWorkspace, tilingData)
