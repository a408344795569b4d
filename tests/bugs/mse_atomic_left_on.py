# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""initcheck: MSELossV2 sum whose cores zero their workspace slot (InitGlobalMemory) and add
their partials into it with the DMA atomic add, and never switch the atomic mode off: core
0's final store of the total to `output` is then an atomic add too, out = out + total, onto
whatever out held (here poison bytes). The sanitizer sees an atomic accumulate into output
bytes nothing wrote before."""

from ascsim.ascendc import *
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_base import BLOCK_FLOATS
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_sum import MSELossV2Sum

from ._corpus import Expect
from ._mse import entry, launch

EXPECT = [Expect("initcheck", "atomic onto unwritten GM", "WARNING")]
N = 3 * 128 * 8 + 5  # 3 cores of fp32
TILE = 2048  # small tiles leave free UB for InitGlobalMemory's fill


class AtomicLeftOn(MSELossV2Sum):
    def CopyOut(self):
        self.uploadQue_.EnQue(self.outLocal_)
        partial = self.uploadQue_.DeQue[float]()
        slot = self.workspaceGm_[BLOCK_FLOATS * (self.coreNum_ + self.blockIdx_)]
        InitGlobalMemory[float](slot, BLOCK_FLOATS, float(0.0))
        SetAtomicAdd[float]()
        DataCopy(slot, partial, BLOCK_FLOATS)
        self.uploadQue_.FreeTensor(partial)
        SyncAll()
        if self.blockIdx_ != 0:
            return
        count = BLOCK_FLOATS * self.coreNum_
        partials = self.downloadQue_.AllocTensor[float]()
        DataCopy(partials, self.workspaceGm_[count], count)
        self.downloadQue_.EnQue(partials)
        partials = self.downloadQue_.DeQue[float]()
        ReduceSum(partials, partials, partials, count)
        result = self.uploadQue_.AllocTensor[float]()
        DataCopy(result, partials, BLOCK_FLOATS)
        self.downloadQue_.FreeTensor(partials)
        self.uploadQue_.EnQue(result)
        result = self.uploadQue_.DeQue[float]()
        DataCopyPad(self.outputGm_, result, DataCopyExtParams(1, 4, 0, 0, 0))  # BUG: still atomic
        self.uploadQue_.FreeTensor(result)


class AtomicSwitchedOff(MSELossV2Sum):
    def CopyOut(self):
        self.uploadQue_.EnQue(self.outLocal_)
        partial = self.uploadQue_.DeQue[float]()
        slot = self.workspaceGm_[BLOCK_FLOATS * (self.coreNum_ + self.blockIdx_)]
        InitGlobalMemory[float](slot, BLOCK_FLOATS, float(0.0))
        SetAtomicAdd[float]()
        DataCopy(slot, partial, BLOCK_FLOATS)
        SetAtomicNone()  # FIXED: plain stores from here on
        self.uploadQue_.FreeTensor(partial)
        SyncAll()
        if self.blockIdx_ != 0:
            return
        count = BLOCK_FLOATS * self.coreNum_
        partials = self.downloadQue_.AllocTensor[float]()
        DataCopy(partials, self.workspaceGm_[count], count)
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


def run(sanitize="check"):
    return launch(entry(AtomicLeftOn), N, "sum", sanitize, tile=TILE)


def run_fixed(sanitize="check"):
    return launch(entry(AtomicSwitchedOff), N, "sum", sanitize, tile=TILE)
