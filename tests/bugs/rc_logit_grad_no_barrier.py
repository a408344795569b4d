# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""racecheck: LogitGrad (built manual-sync) with the PipeBarrier<PIPE_V> after Muls left out:
Adds reads the scratch Muls is still writing (V->V RAW needs the barrier when the compiler
inserts none)."""

import numpy as np

import ascsim
from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync
from kernels_py.logit_grad.op_kernel.logit_grad_kernel import (
    SCRATCH_OFFSET,
    KernelLogitGrad,
)
from kernels_py.logit_grad.op_kernel.logit_grad_tiling_data import LogitGradTilingData

from ._corpus import Expect

EXPECT = [Expect("racecheck", "RAW")]
STRICT = "RaceError"


class NoBarrier(KernelLogitGrad):
    def Compute(self, calNum, setBase):
        xFp32 = self.ub_[setBase].ReinterpretCast[float]()
        tmp = self.ub_[SCRATCH_OFFSET].ReinterpretCast[float]()
        Muls(tmp, xFp32, -1.0, calNum)
        Adds(tmp, tmp, 1.0, calNum)  # BUG: no PipeBarrier<PIPE_V> before it
        PipeBarrier[PIPE_V]()
        super().Compute(calNum, setBase)


@kernel_sync("manual")
def no_barrier(x, dy, dx, workspace, tiling):
    tilingData = GET_TILING_DATA(tiling)
    op = NoBarrier[float]()
    op.Init(x, dy, dx, tilingData)
    op.Process()


def run(sanitize="check"):
    n = 3 * 8192
    rng = np.random.default_rng(5)
    x = rng.uniform(0.01, 0.99, n).astype(np.float32)
    dy = rng.uniform(-1, 1, n).astype(np.float32)
    til = LogitGradTilingData(elementNum=n, eps=-1.0, needCoreNum=1)
    return ascsim.launch(no_barrier, 1, x, dy, np.empty_like(x), None, tiling=til,
                         tiling_key=2, sanitize=sanitize, outputs=(2,))


class WithBarrier(KernelLogitGrad):
    def Compute(self, calNum, setBase):
        xFp32 = self.ub_[setBase].ReinterpretCast[float]()
        tmp = self.ub_[SCRATCH_OFFSET].ReinterpretCast[float]()
        Muls(tmp, xFp32, -1.0, calNum)
        PipeBarrier[PIPE_V]()  # FIXED
        Adds(tmp, tmp, 1.0, calNum)
        PipeBarrier[PIPE_V]()
        super().Compute(calNum, setBase)


@kernel_sync("manual")
def with_barrier(x, dy, dx, workspace, tiling):
    tilingData = GET_TILING_DATA(tiling)
    op = WithBarrier[float]()
    op.Init(x, dy, dx, tilingData)
    op.Process()


def run_fixed(sanitize="check"):
    n = 3 * 8192
    rng = np.random.default_rng(5)
    x = rng.uniform(0.01, 0.99, n).astype(np.float32)
    dy = rng.uniform(-1, 1, n).astype(np.float32)
    til = LogitGradTilingData(elementNum=n, eps=-1.0, needCoreNum=1)
    return ascsim.launch(with_barrier, 1, x, dy, np.empty_like(x), None, tiling=til,
                         tiling_key=2, sanitize=sanitize, outputs=(2,))
