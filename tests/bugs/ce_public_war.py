"""racecheck: the public CrossEntropyLoss's WAR race (cann_ops_more.md §2.7 item 4): fp32, mean,
label smoothing and no weight. The weight sum is stored from reduceCalc to the workspace by
MTE3, and the smoothing sum is then reduced into reduceCalc by V (the public fp32 castTmpBuf
has zero bytes and sits on reduceCalc) with no MTE3 -> V wait in between (auto-sync does not
cover V / MTE3), so the store may carry the smoothing sum. ascsim's CopyToWs waits MTE3 -> V
after each store (the twin)."""

from ascsim.ascendc import DataCopyExtParams, DataCopyPad
from kernels_py.cross_entropy_loss.op_kernel.cross_entropy_loss_kernel import (
    KernelCrossEntropyLoss,
)

from ._ce import KERNEL, inputs, launch
from ._corpus import Expect

EXPECT = [Expect("racecheck", "WAR", path=KERNEL,
                 snippet="WholeReduceSum(dst, work, partialNum, 1, 1, 1, 8)")]
STRICT = "RaceError"


class PublicWsStore(KernelCrossEntropyLoss):
    def CopyToWs(self, src, value, slot):
        src.SetValue(0, value)
        copyParams = DataCopyExtParams(1, 4, 0, 0, 0)
        DataCopyPad(self.wsGm[slot + self.blockIdx], src, copyParams)  # BUG: no MTE3 -> V wait


def run(sanitize="check"):
    x, t, _ = inputs(4, 24, seed=5)
    return launch(PublicWsStore, x, t, reduction="mean", label_smoothing=0.2, cores=2,
                  sanitize=sanitize)


def run_fixed(sanitize="check"):
    x, t, _ = inputs(4, 24, seed=5)
    return launch(KernelCrossEntropyLoss, x, t, reduction="mean", label_smoothing=0.2,
                  cores=2, sanitize=sanitize)  # FIXED: CopyToWs waits MTE3 -> V
