"""multicore: a CrossEntropyLoss (mean) variant whose weight-sum slots start at workspace
float 32 instead of 64: with more than 32 cores, core c's weight slot 32 + c is core
(32 + c)'s ln slot, so two cores write the same workspace bytes between the same SyncAlls.
The twin keeps the slots 64 floats apart (the op's layout)."""

from ascsim.ascendc import SyncAll
from kernels_py.cross_entropy_loss.op_kernel.cross_entropy_loss_kernel import (
    WS_LN_SLOT,
    WS_WEIGHT_SLOT,
    KernelCrossEntropyLoss,
)

from ._ce import KERNEL, inputs, launch
from ._corpus import Expect

EXPECT = [Expect("multicore", "write overlap", path=KERNEL,
                 snippet="DataCopyPad(self.wsGm[slot + self.blockIdx], src, copyParams)")]
STRICT = "UninitialisedError"  # strict stops at the first ERROR: the unordered workspace read
CORES = 40


class OverlappingSlots(KernelCrossEntropyLoss):
    WEIGHT_SLOT = 32  # BUG: only 32 floats after the ln slots, for up to 64 cores

    def GetMeanLoss(self):
        lnSum = self.ReduceToScalar(self.lnLocal, self.reduceRes, self.batchNum)
        self.CopyToWs(self.reduceRes, lnSum, WS_LN_SLOT)
        weightSum = self.ReduceToScalar(self.weightLocal, self.reduceCalc, self.batchNum)
        self.CopyToWs(self.reduceCalc, weightSum, self.WEIGHT_SLOT)
        SyncAll()
        if self.blockIdx == 0:
            self.CalcFinalLoss()


class SeparateSlots(OverlappingSlots):
    WEIGHT_SLOT = WS_WEIGHT_SLOT  # FIXED: 64 floats per slot, one per possible core


def run(sanitize="check"):
    x, t, _ = inputs(CORES, 8, seed=4)
    return launch(OverlappingSlots, x, t, cores=CORES, sanitize=sanitize)


def run_fixed(sanitize="check"):
    x, t, _ = inputs(CORES, 8, seed=4)
    return launch(SeparateSlots, x, t, cores=CORES, sanitize=sanitize)
