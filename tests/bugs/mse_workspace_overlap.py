# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""multicore: MSELossV2 sum whose per-core workspace slots are 16 bytes apart while each core
stores its 8-float (32-byte) accumulator: the slots of neighbouring cores overlap, so two
cores write the same workspace bytes and the total depends on which lands last."""

from ascsim.ascendc import *
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_base import BLOCK_FLOATS
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_sum import MSELossV2Sum

from ._corpus import Expect
from ._mse import entry, launch

EXPECT = [Expect("multicore", "write overlap")]
STRICT = "MultiCoreError"
N = 5 * 128 * 8 + 1  # 5 cores of fp32: the overlapping slots span 4 * 5 + 4 = 24 floats
SLOT_FLOATS = 4  # 16-byte slots


class OverlappingSlots(MSELossV2Sum):
    def CopyOut(self):
        self.uploadQue_.EnQue(self.outLocal_)
        partial = self.uploadQue_.DeQue[float]()
        slot = SLOT_FLOATS * (self.coreNum_ + self.blockIdx_)  # 16-byte slots ...
        DataCopy(self.workspaceGm_[slot], partial, BLOCK_FLOATS)  # BUG: ... for 32 bytes each
        self.uploadQue_.FreeTensor(partial)
        SyncAll()
        if self.blockIdx_ != 0:
            return
        count = SLOT_FLOATS * self.coreNum_ + BLOCK_FLOATS - SLOT_FLOATS
        partials = self.downloadQue_.AllocTensor[float]()
        DataCopy(partials, self.workspaceGm_[SLOT_FLOATS * self.coreNum_], count)
        self.downloadQue_.EnQue(partials)
        partials = self.downloadQue_.DeQue[float]()
        ReduceSum(partials, partials, partials, count)
        result = self.uploadQue_.AllocTensor[float]()
        DataCopy(result, partials, BLOCK_FLOATS)
        self.downloadQue_.FreeTensor(partials)
        self.uploadQue_.EnQue(result)
        result = self.uploadQue_.DeQue[float]()
        DataCopyPad(self.outputGm_, result, DataCopyExtParams(1, 4, 0, 0, 0))
        self.uploadQue_.FreeTensor(result)


class SeparateSlots(MSELossV2Sum):
    """The shipped combine: 32-byte slots at 32 * (coreNum + blockIdx)."""  # FIXED


def run(sanitize="check"):
    return launch(entry(OverlappingSlots), N, "sum", sanitize)


def run_fixed(sanitize="check"):
    return launch(entry(SeparateSlots), N, "sum", sanitize)
