"""LogitGrad kernel entry: one instantiation per dtype, chosen by the tiling key
(1 fp16, 2 fp32, 3 bf16).
"""

from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync

from .logit_grad_kernel import KernelLogitGrad
from .logit_grad_tiling_data import LogitGradTilingData


@kernel_sync("manual")  # built with auto_sync = false: every PipeBarrier is in the source
def logit_grad(x, dy, dx, workspace, tiling):
    REGISTER_TILING_DEFAULT(LogitGradTilingData)
    tilingData = GET_TILING_DATA(tiling)
    if TILING_KEY_IS(1):
        op = KernelLogitGrad[half]()
        op.Init(x, dy, dx, tilingData)
        op.Process()
    elif TILING_KEY_IS(2):
        op = KernelLogitGrad[float]()
        op.Init(x, dy, dx, tilingData)
        op.Process()
    elif TILING_KEY_IS(3):
        op = KernelLogitGrad[bfloat16_t]()
        op.Init(x, dy, dx, tilingData)
        op.Process()
