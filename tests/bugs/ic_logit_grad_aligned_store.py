# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""initcheck: LogitGrad storing its result rounded up to the compare alignment (64 elements)
instead of the tile's count. For a tail tile the extra elements of the X region were never
written by Select: DataCopyPad's dummy bytes and never-written UB reach GM. (The compares'
own reads of those elements are fine: their mask bits are never used, and the shipped kernel
reports nothing.)"""

import numpy as np

import ascsim
from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync
from kernels_py.logit_grad.op_kernel.logit_grad_kernel import KernelLogitGrad
from kernels_py.logit_grad.op_kernel.logit_grad_tiling_data import LogitGradTilingData

from ._corpus import Expect

EXPECT = [Expect("initcheck", "uninitialised value reaches GM")]
STRICT = "UninitialisedError"
N = 100


class AlignedStore(KernelLogitGrad):
    def CopyOut(self, offset, calNum, setBase, eventId):
        alignedNum = (calNum + 63) // 64 * 64
        SetFlag[HardEvent.V_MTE3](eventId)
        WaitFlag[HardEvent.V_MTE3](eventId)
        DataCopy(self.dxGm_[offset], self.ub_[setBase].ReinterpretCast[float](), alignedNum)  # BUG
        SetFlag[HardEvent.MTE3_MTE2](eventId)


@kernel_sync("manual")
def aligned_store(x, dy, dx, workspace, tiling):
    tilingData = GET_TILING_DATA(tiling)
    op = AlignedStore[float]()
    op.Init(x, dy, dx, tilingData)
    op.Process()


def run(sanitize="check"):
    rng = np.random.default_rng(6)
    x = rng.uniform(0.01, 0.99, N).astype(np.float32)
    dy = rng.uniform(-1, 1, N).astype(np.float32)
    dx = np.empty(128, np.float32)  # room for the rounded-up store
    til = LogitGradTilingData(elementNum=N, eps=-1.0, needCoreNum=1)
    return ascsim.launch(aligned_store, 1, x, dy, dx, None, tiling=til, tiling_key=2,
                         sanitize=sanitize, outputs=(2,))


@kernel_sync("manual")
def shipped(x, dy, dx, workspace, tiling):
    tilingData = GET_TILING_DATA(tiling)
    op = KernelLogitGrad[float]()  # FIXED: the shipped CopyOut stores exactly calNum elements
    op.Init(x, dy, dx, tilingData)
    op.Process()


def run_fixed(sanitize="check"):
    rng = np.random.default_rng(6)
    x = rng.uniform(0.01, 0.99, N).astype(np.float32)
    dy = rng.uniform(-1, 1, N).astype(np.float32)
    til = LogitGradTilingData(elementNum=N, eps=-1.0, needCoreNum=1)
    return ascsim.launch(shipped, 1, x, dy, np.empty(N, np.float32), None, tiling=til,
                         tiling_key=2, sanitize=sanitize, outputs=(2,))
