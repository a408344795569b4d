# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""The public (CANN ops-nn) LogitGrad kernel's UB layout and instruction sequence, transcribed
from the facts in cann_ops.md §7a.5-7a.6 (not from its source), with its two latent bugs:

- one TBuf of all 192 KB, ping [0, 98304) and pong [98304, 196608), each X (fp32 x, then the
  result), D (fp32 dy, then q) and TMP (x(1-x), then the masks): Select's library temp write at
  188416 lands inside pong's TMP (§7a.7.1);
- fp16/bf16 inputs staged in the upper half of X and D and widened in place: the last repeat of
  each widening Cast reads its own destination (src +16384, dst +0), and the narrowing Cast at
  the end overlaps at repeat 0 (§7a.7.2).
"""

import numpy as np

from ascsim.ascendc import *
from ascsim.ascendc import kernel_sync

PP_ELEMENT_NUM = 8192
MAX_UB_SIZE = 196608
HALF_UB = 98304
X2_OFFSET = 32768
TMP_OFFSET = 65536
MASK_TWO_OFFSET = 81920
STAGE_OFFSET = 16384


class PublicLogitGrad(Generic[T]):
    def __init__(self):
        self.pipe = TPipe()
        self.ubBuf = TBuf[TPosition.VECCALC]()
        self.xGm = GlobalTensor[self.T]()
        self.dyGm = GlobalTensor[self.T]()
        self.dxGm = GlobalTensor[self.T]()

    def Init(self, x, dy, dx, tiling):
        self.n = tiling.elementNum
        self.cores = int(tiling.needCoreNum)
        self.lo = tiling.eps if tiling.eps >= 0 else float(0.0)
        self.fill = float(0.0) if tiling.eps >= 0 else np.float32(np.nan)
        self.hi = float(1.0) - self.lo
        self.xGm.SetGlobalBuffer(x, self.n)
        self.dyGm.SetGlobalBuffer(dy, self.n)
        self.dxGm.SetGlobalBuffer(dx, self.n)
        self.pipe.InitBuffer(self.ubBuf, MAX_UB_SIZE)  # all of UB, the reserved area too

    def Process(self):
        b = GetBlockIdx()
        tiles = (self.n + PP_ELEMENT_NUM - 1) // PP_ELEMENT_NUM
        q, r = tiles // self.cores, tiles % self.cores
        mine = q + 1 if b < r else q
        start = mine * b * PP_ELEMENT_NUM
        if r > 0 and b >= r:
            start += self.n % (PP_ELEMENT_NUM * self.cores)
        last = self.cores - 1 if r == 0 else r - 1
        ub = self.ubBuf.Get[uint8_t]()
        SetFlag[HardEvent.MTE3_MTE2](EVENT_ID0)
        SetFlag[HardEvent.MTE3_MTE2](EVENT_ID1)
        for i in range(mine):
            e = EVENT_ID0 if i % 2 == 0 else EVENT_ID1
            base = 0 if i % 2 == 0 else HALF_UB
            n = PP_ELEMENT_NUM
            if self.n % PP_ELEMENT_NUM and b == last and i == mine - 1:
                n = self.n % PP_ELEMENT_NUM
            self.Tile(ub, start + i * PP_ELEMENT_NUM, n, base, e)
        WaitFlag[HardEvent.MTE3_MTE2](EVENT_ID0)
        WaitFlag[HardEvent.MTE3_MTE2](EVENT_ID1)

    def Tile(self, ub, off, n, base, e):
        x1 = ub[base].ReinterpretCast[float]()
        x2 = ub[base + X2_OFFSET].ReinterpretCast[float]()
        tmp = ub[base + TMP_OFFSET].ReinterpretCast[float]()
        maskOne = ub[base + TMP_OFFSET]
        maskTwo = ub[base + MASK_TWO_OFFSET]
        params = DataCopyExtParams(1, n * sizeof(self.T), 0, 0, 0)
        pad = DataCopyPadExtParams[self.T](False, 0, 0, 0)
        WaitFlag[HardEvent.MTE3_MTE2](e)
        if self.T is float:
            DataCopyPad(x1, self.xGm[off], params, pad)
            DataCopyPad(x2, self.dyGm[off], params, pad)
        else:
            DataCopyPad(ub[base + STAGE_OFFSET].ReinterpretCast[self.T](), self.xGm[off],
                        params, pad)
            DataCopyPad(ub[base + X2_OFFSET + STAGE_OFFSET].ReinterpretCast[self.T](),
                        self.dyGm[off], params, pad)
        SetFlag[HardEvent.MTE2_V](e)
        WaitFlag[HardEvent.MTE2_V](e)
        if self.T is not float:
            xStage = ub[base + STAGE_OFFSET].ReinterpretCast[self.T]()
            Cast(x1, xStage, RoundMode.CAST_NONE, n)  # BUG(widen)
            PipeBarrier[PIPE_V]()
            Cast(x2, ub[base + X2_OFFSET + STAGE_OFFSET].ReinterpretCast[self.T](),
                 RoundMode.CAST_NONE, n)
            PipeBarrier[PIPE_V]()
        Muls(tmp, x1, -1.0, n)
        PipeBarrier[PIPE_V]()
        Adds(tmp, tmp, 1.0, n)
        PipeBarrier[PIPE_V]()
        Mul(tmp, x1, tmp, n)
        PipeBarrier[PIPE_V]()
        Div(x2, x2, tmp, n)
        PipeBarrier[PIPE_V]()
        n64 = (n + 63) // 64 * 64
        CompareScalar(maskOne, x1, self.lo, CMPMODE.GE, n64)
        PipeBarrier[PIPE_V]()
        CompareScalar(maskTwo, x1, self.hi, CMPMODE.LE, n64)
        PipeBarrier[PIPE_V]()
        And(maskOne.ReinterpretCast[uint16_t](), maskOne.ReinterpretCast[uint16_t](),
            maskTwo.ReinterpretCast[uint16_t](), n64 // 16)
        PipeBarrier[PIPE_V]()
        Select(x1, maskOne, x2, self.fill, SELMODE.VSEL_TENSOR_SCALAR_MODE, n)  # BUG(select)
        PipeBarrier[PIPE_V]()
        out = x1
        if self.T is not float:
            out = ub[base].ReinterpretCast[self.T]()
            mode = RoundMode.CAST_NONE if self.T is half else RoundMode.CAST_RINT
            Cast(out, x1, mode, n)  # BUG(narrow)
            PipeBarrier[PIPE_V]()
        SetFlag[HardEvent.V_MTE3](e)
        WaitFlag[HardEvent.V_MTE3](e)
        DataCopyPad(self.dxGm[off], out.ReinterpretCast[self.T](), params)
        SetFlag[HardEvent.MTE3_MTE2](e)


@kernel_sync("manual")
def public_logit_grad(x, dy, dx, workspace, tiling):
    tilingData = GET_TILING_DATA(tiling)
    if TILING_KEY_IS(1):
        op = PublicLogitGrad[half]()
    elif TILING_KEY_IS(2):
        op = PublicLogitGrad[float]()
    else:
        op = PublicLogitGrad[bfloat16_t]()
    op.Init(x, dy, dx, tilingData)
    op.Process()


def launch_public(x, dy, cores: int, key: int, sanitize: str, eps: float = -1.0):
    import ascsim
    from kernels_py.logit_grad.op_kernel.logit_grad_tiling_data import LogitGradTilingData
    til = LogitGradTilingData(elementNum=x.size, eps=eps, needCoreNum=cores)
    dx = np.empty_like(x)
    run = ascsim.launch(public_logit_grad, cores, x, dy, dx, None, tiling=til, tiling_key=key,
                        sanitize=sanitize, outputs=(2,))
    return dx, run
