"""memcheck: the public CrossEntropyLoss's mean reduces the per-row ln values with the input
buffer as its scratch (cann_ops_more.md §2.7 item 3): for a short row (fp32 C = 5: an 8-float
chunk buffer) the reduction's repeats address past that buffer (into calcBuf). ascsim's kernel
reduces through its 4 KB work area (the twin). The public buffer is modelled by cutting the
input buffer to one chunk (ascsim rounds it up to a whole repeat)."""

from ascsim.ascendc import SyncAll
from kernels_py.cross_entropy_loss.op_kernel.cross_entropy_loss_kernel import (
    WS_LN_SLOT,
    WS_WEIGHT_SLOT,
    KernelCrossEntropyLoss,
)

from ._ce import KERNEL, inputs, launch
from ._corpus import Expect

EXPECT = [Expect("memcheck", "out of range", path=KERNEL,
                 snippet="WholeReduceSum(dst, work, partialNum, 1, 1, 1, 8)")]
STRICT = "OutOfRangeError"


class PublicMeanScratch(KernelCrossEntropyLoss):
    SCRATCH_IS_INPUT = True

    def GetMeanLoss(self):
        self.inputLocal.SetSize(self.inputUbSize)  # the public one-chunk input buffer
        work = self.inputLocal if self.SCRATCH_IS_INPUT else self.workLocal
        self.GetReduceSum(self.lnLocal, work, self.reduceRes, self.batchNum)  # BUG: input as work
        lnSum = self.ReduceToScalar(self.lnLocal, self.reduceRes, self.batchNum)
        self.CopyToWs(self.reduceRes, lnSum, WS_LN_SLOT)
        weightSum = self.ReduceToScalar(self.weightLocal, self.reduceCalc, self.batchNum)
        self.CopyToWs(self.reduceCalc, weightSum, WS_WEIGHT_SLOT)
        SyncAll()
        if self.blockIdx == 0:
            self.CalcFinalLoss()


class WorkAreaScratch(PublicMeanScratch):
    SCRATCH_IS_INPUT = False  # FIXED: the reduction's scratch is workLocal


def run(sanitize="check"):
    x, t, _ = inputs(40, 5, seed=8)
    return launch(PublicMeanScratch, x, t, cores=2, sanitize=sanitize)


def run_fixed(sanitize="check"):
    x, t, _ = inputs(40, 5, seed=8)
    return launch(WorkAreaScratch, x, t, cores=2, sanitize=sanitize)
