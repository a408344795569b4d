"""multicore: CrossEntropyLoss (mean) without the SyncAll between the cores' workspace stores
and core 0's read of all the slots: core 0 may read another core's partial before it lands.
The finding is at core 0's read of the slots."""

from kernels_py.cross_entropy_loss.op_kernel.cross_entropy_loss_kernel import (
    WS_LN_SLOT,
    WS_SMOOTH_SLOT,
    WS_WEIGHT_SLOT,
    KernelCrossEntropyLoss,
)

from ._ce import KERNEL, inputs, launch
from ._corpus import Expect

EXPECT = [Expect("multicore", "read/write overlap", severity="WARNING", path=KERNEL,
                 snippet="DataCopyPad(self.calcLocal[slot], self.wsGm[slot]"),
          Expect("initcheck", "read of unwritten workspace", path=KERNEL,
                 snippet="DataCopyPad(self.calcLocal[slot], self.wsGm[slot]")]
STRICT = "UninitialisedError"  # strict stops at the first ERROR: the unordered workspace read


class NoSyncAll(KernelCrossEntropyLoss):
    def GetMeanLoss(self):
        lnSum = self.ReduceToScalar(self.lnLocal, self.reduceRes, self.batchNum)
        self.CopyToWs(self.reduceRes, lnSum, WS_LN_SLOT)
        weightSum = self.ReduceToScalar(self.weightLocal, self.reduceCalc, self.batchNum)
        self.CopyToWs(self.reduceCalc, weightSum, WS_WEIGHT_SLOT)
        if self.isSmoothing:
            smoothSum = self.ReduceToScalar(self.smoothingLossLocal, self.reduceCalc, self.batchNum)
            self.CopyToWs(self.reduceCalc, smoothSum, WS_SMOOTH_SLOT)
        # BUG: no SyncAll() before core 0 reads every core's slot
        if self.blockIdx == 0:
            self.CalcFinalLoss()


def run(sanitize="check"):
    x, t, _ = inputs(4, 40)
    return launch(NoSyncAll, x, t, cores=4, sanitize=sanitize)


def run_fixed(sanitize="check"):
    x, t, _ = inputs(4, 40)
    return launch(KernelCrossEntropyLoss, x, t, cores=4, sanitize=sanitize)  # FIXED: SyncAll
