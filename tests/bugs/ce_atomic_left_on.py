# ruff: noqa: F403, F405  (kernel code: the AscendC surface by star import)
"""initcheck: a CrossEntropyLoss (sum) variant that accumulates the cores' ln sums with a DMA
atomic add into one workspace slot (zeroed by core 0 before a SyncAll) and leaves the atomic
mode on: the smoothing partial each core stores next with a plain DataCopyPad becomes an
atomic add onto workspace bytes nothing initialised. Its twin calls SetAtomicNone after the
accumulation."""

from ascsim.ascendc import *
from kernels_py.cross_entropy_loss.op_kernel.cross_entropy_loss_kernel import (
    WS_LN_SLOT,
    WS_SMOOTH_SLOT,
    KernelCrossEntropyLoss,
)

from ._ce import KERNEL, inputs, launch
from ._corpus import Expect

EXPECT = [Expect("initcheck", "atomic onto unwritten GM", path=KERNEL,
                 snippet="DataCopyPad(self.wsGm[slot + self.blockIdx], src, copyParams)")]
STRICT = "UninitialisedError"


class AtomicSum(KernelCrossEntropyLoss):
    RESET = False

    def AtomicLnSum(self, lnSum):
        if self.blockIdx == 0:
            self.reduceRes.SetValue(0, 0.0)
            DataCopyPad(self.wsGm[WS_LN_SLOT], self.reduceRes, DataCopyExtParams(1, 4, 0, 0, 0))
        SyncAll()
        self.reduceRes.SetValue(0, lnSum)
        SetAtomicAdd[float]()
        DataCopyPad(self.wsGm[WS_LN_SLOT], self.reduceRes, DataCopyExtParams(1, 4, 0, 0, 0))
        if self.RESET:
            SetAtomicNone()  # FIXED: the next stores are plain again

    def GetSumLoss(self):
        lnSum = self.ReduceToScalar(self.lnLocal, self.reduceRes, self.batchNum)
        self.AtomicLnSum(lnSum)  # BUG: the atomic mode stays on after the accumulation
        eventId = self.pipe.FetchEventID(HardEvent.MTE3_V)
        SetFlag[HardEvent.MTE3_V](eventId)
        WaitFlag[HardEvent.MTE3_V](eventId)
        smoothSum = self.ReduceToScalar(self.smoothingLossLocal, self.reduceCalc, self.batchNum)
        self.CopyToWs(self.reduceCalc, smoothSum, WS_SMOOTH_SLOT)
        SyncAll()
        if self.blockIdx == 0:
            self.reduceRes.SetValue(0, 0.0)
            self.StoreFinalLoss(0.0)


class AtomicSumFixed(AtomicSum):
    RESET = True


def run(sanitize="check"):
    x, t, _ = inputs(2, 40, seed=3)
    return launch(AtomicSum, x, t, reduction="sum", label_smoothing=0.25, cores=2,
                  sanitize=sanitize)


def run_fixed(sanitize="check"):
    x, t, _ = inputs(2, 40, seed=3)
    return launch(AtomicSumFixed, x, t, reduction="sum", label_smoothing=0.25, cores=2,
                  sanitize=sanitize)
