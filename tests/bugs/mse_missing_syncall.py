# ruff: noqa: F403, F405, UP018  (kernel code: the AscendC surface by star import)
"""multicore: MSELossV2 sum with the hard SyncAll left out of the cross-core combine: core 0
reads the other cores' partials from the workspace with nothing ordering those reads after
the other cores' writes (a PipeBarrier<PIPE_ALL> orders one core's own pipes only)."""

from ascsim.ascendc import *
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_base import BLOCK_FLOATS
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_sum import MSELossV2Sum

from ._corpus import Expect
from ._mse import entry, launch

EXPECT = [Expect("multicore", "read/write overlap", "WARNING"),
          Expect("initcheck", "read of unwritten workspace")]
STRICT = "UninitialisedError"
N = 5 * 128 * 8 + 3  # 5 cores of fp32


class NoSyncAll(MSELossV2Sum):
    def CopyOut(self):
        self.uploadQue_.EnQue(self.outLocal_)
        partial = self.uploadQue_.DeQue[float]()
        slot = BLOCK_FLOATS * (self.coreNum_ + self.blockIdx_)
        DataCopy(self.workspaceGm_[slot], partial, BLOCK_FLOATS)
        self.uploadQue_.FreeTensor(partial)
        PipeBarrier[PIPE_ALL]()
        if self.blockIdx_ != 0:
            return
        count = BLOCK_FLOATS * self.coreNum_
        partials = self.downloadQue_.AllocTensor[float]()
        DataCopy(partials, self.workspaceGm_[count], count)  # BUG: no SyncAll before it
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


class WithSyncAll(NoSyncAll):
    def CopyOut(self):
        self.uploadQue_.EnQue(self.outLocal_)
        partial = self.uploadQue_.DeQue[float]()
        slot = BLOCK_FLOATS * (self.coreNum_ + self.blockIdx_)
        DataCopy(self.workspaceGm_[slot], partial, BLOCK_FLOATS)
        self.uploadQue_.FreeTensor(partial)
        SyncAll()  # FIXED: every core's partial is in GM before core 0 reads them
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
    return launch(entry(NoSyncAll), N, "sum", sanitize)


def run_fixed(sanitize="check"):
    return launch(entry(WithSyncAll), N, "sum", sanitize)
