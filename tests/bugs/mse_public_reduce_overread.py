# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: the public MSELossV2 sum / mean tail (cann_ops_more.md §1.8 item 1). With
N mod (32 / sizeof(T)) != 0 the last core copies its tail tile plus one whole 32-byte block
with DataCopy (computing over the tailElems it needs only): both inputs are read up to 30
bytes (fp16) past element N. ascsim's kernel copies the partial block with DataCopyPad,
exact bytes; this variant puts the public copy back."""

import numpy as np

from ascsim.ascendc import *
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_base import BLOCK_BYTES
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_mean import MSELossV2Mean

from ._corpus import Expect
from ._mse import entry, launch

EXPECT = [Expect("memcheck", "out of range")]
STRICT = "OutOfRangeError"
N = 16 * 130 + 9  # fp16, one core: 130 whole blocks, 9 elements after them


class PublicOverRead(MSELossV2Mean):
    def CopyGmToUb(self, dst, src, n):
        epb = BLOCK_BYTES // sizeof(self.T)
        DataCopy(dst, src, (n + epb - 1) // epb * epb)  # BUG: the last block reaches past N


def run(sanitize="check"):
    return launch(entry(PublicOverRead, half), N, "mean", sanitize, dtype=np.float16)


def run_fixed(sanitize="check"):
    return launch(entry(MSELossV2Mean, half), N, "mean", sanitize, dtype=np.float16)  # FIXED
