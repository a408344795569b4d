"""memcheck: the public CrossEntropyLoss's probOutBuf overrun (cann_ops_more.md §2.7 item 2):
for half / bf16 with reduction none, probOutBuf holds one chunk (inputUbSize elements, 16 when
C <= 16), but GetNoneLoss narrows the core's whole per-row loss vector (batchNum elements) into
it: with more rows per core than that, the Cast runs past the buffer (into reduceCalc,
reduceRes and lnLocal, its own source). Here fp16 (40, 1) on 2 cores: 20 rows, a 16-element
probOutBuf. ascsim's tiling sizes probOutBuf for both (probOutBufByte; the twin)."""

import numpy as np

from ascsim.ascendc import sizeof
from kernels_py.cross_entropy_loss.op_kernel.cross_entropy_loss_kernel import (
    KernelCrossEntropyLoss,
)

from ._ce import KERNEL, inputs, launch
from ._corpus import Expect

EXPECT = [Expect("memcheck", "out of range", path=KERNEL,
                 snippet="Cast(self.probOutBuf, self.lnLocal, RoundMode.CAST_RINT, self.batchNum)")]
STRICT = "OutOfRangeError"


class PublicProbOut(KernelCrossEntropyLoss):
    def InitUB(self):
        self.probOutBufByte = self.inputUbSize * sizeof(self.T)  # BUG: one chunk, not the rows
        super().InitUB()
        self.probOutBuf.SetSize(self.probOutBufByte // sizeof(self.T))


class SizedProbOut(KernelCrossEntropyLoss):
    def InitUB(self):
        super().InitUB()  # FIXED: probOutBufByte from the tiling covers the rows too
        self.probOutBuf.SetSize(self.probOutBufByte // sizeof(self.T))


def run(sanitize="check"):
    x, t, _ = inputs(40, 1, np.float16, seed=6)
    return launch(PublicProbOut, x, t, reduction="none", cores=2, sanitize=sanitize)


def run_fixed(sanitize="check"):
    x, t, _ = inputs(40, 1, np.float16, seed=6)
    return launch(SizedProbOut, x, t, reduction="none", cores=2, sanitize=sanitize)
