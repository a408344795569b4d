"""memcheck: the public CrossEntropyLoss reads weight[t] for any target that is not
ignore_index (cann_ops_more.md §2.7 item 1): a target outside [0, C) reads GM past the weight
tensor (here t = C). ascsim's kernel gives such a row NaN without reading weight (the twin)."""

from kernels_py.cross_entropy_loss.op_kernel.cross_entropy_loss_kernel import (
    KernelCrossEntropyLoss,
)

from ._ce import inputs, launch
from ._corpus import Expect

EXPECT = [Expect("memcheck", "out of range")]
STRICT = "OutOfRangeError"


class PublicWeightRead(KernelCrossEntropyLoss):
    def Process(self):
        # the public row loop's weight read, before ours: no range check on the target
        for r in range(self.batchNum):
            target = self.targetGm.GetValue(self.startRow + r)
            if target != self.ignoreIndex and self.defaultWeight == 0:
                self.weightGm.GetValue(target)  # BUG: t may lie outside [0, C)
        super().Process()


def _inputs():
    x, t, w = inputs(4, 24, seed=7, weight=True)
    t[1] = 24  # a target past the last class
    return x, t, w


def run(sanitize="check"):
    x, t, w = _inputs()
    return launch(PublicWeightRead, x, t, w, reduction="none", cores=2, sanitize=sanitize)


def run_fixed(sanitize="check"):
    x, t, w = _inputs()
    out = launch(KernelCrossEntropyLoss, x, t, w, reduction="none", cores=2,
                 sanitize=sanitize)  # FIXED: an invalid target reads nothing, its row is NaN
    return out
