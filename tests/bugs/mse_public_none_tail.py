# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""memcheck: the public MSELossV2 `none` tail (cann_ops_more.md §1.8 item 1). With
N mod (32 / sizeof(T)) != 0 the last core rounds its tail tile up to whole 32-byte blocks and
moves all of it with DataCopy: it reads both inputs and writes the output up to 28 bytes
(fp32) past element N. ascsim's kernel copies the partial block with DataCopyPad, exact
bytes; this variant puts the public tail back."""

from ascsim.ascendc import *
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_base import BLOCK_BYTES
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_none import MSELossV2None

from ._corpus import Expect
from ._mse import entry, launch

EXPECT = [Expect("memcheck", "out of range", tag="read"),
          Expect("memcheck", "out of range", tag="write")]
STRICT = "OutOfRangeError"
N = 100  # fp32, one core: 96 elements in whole blocks, 4 after them


class PublicNoneTail(MSELossV2None):
    def TailCount(self):
        epb = BLOCK_BYTES // sizeof(self.T)
        return (self.tailTileLength_ + self.tailElems_ + epb - 1) // epb * epb

    def CopyGmToUb(self, dst, src, n):
        DataCopy(dst, src, n)  # BUG(read): a whole block past N

    def CopyUbToGm(self, dst, src, n):
        DataCopy(dst, src, n)  # BUG(write): a whole block past N


def run(sanitize="check"):
    return launch(entry(PublicNoneTail), N, "none", sanitize)


def run_fixed(sanitize="check"):
    return launch(entry(MSELossV2None), N, "none", sanitize)  # FIXED: the shipped tail
