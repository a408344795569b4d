"""Launching MSELossV2 kernel variants for the corpus: the op's own tiling, the kernel entry's
shape (input, target, output, workspace, tiling), a zeroed workspace, an output that starts
as poison (0xA5 bytes); and the sum's cross-core combine cut into the steps the planted bugs
change (SplitCombine)."""

from __future__ import annotations

import numpy as np

import ascsim
from ascsim.ascendc import (
    GET_TILING_DATA,
    KERNEL_TASK_TYPE_DEFAULT,
    KERNEL_TYPE_MIX_AIV_1_0,
    DataCopy,
    DataCopyExtParams,
    DataCopyPad,
    GetUserWorkspace,
    ReduceSum,
    SyncAll,
    float,
)
from ascsim.tuning import tiling_overrides
from kernels_py.mse_loss_v2 import tiling_for
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_base import BLOCK_FLOATS
from kernels_py.mse_loss_v2.op_kernel.mse_loss_v2_sum import MSELossV2Sum


def entry(cls, T=float):
    """A kernel entry that runs cls[T] (a MSELossV2None / Sum / Mean variant)."""
    def kernel(input, target, output, workspace, tiling):
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0)
        tilingData = GET_TILING_DATA(tiling)
        op = cls[T]()
        if workspace is None:
            op.Init(input, target, output, tilingData)
        else:
            op.Init(input, target, output, GetUserWorkspace(workspace), tilingData)
        op.Process()
    kernel.__name__ = f"mse_{cls.__name__.lower()}"
    return kernel


def launch(kernel, n: int, reduction: str, sanitize: str = "check", seed: int = 0,
           dtype=np.float32, profile: str | None = None, **knobs) -> ascsim.Run:
    """`knobs`: forced tiling choices (the sweep knobs, e.g. tile=2048)."""
    rng = np.random.default_rng(seed)
    x, y = (rng.uniform(-1, 1, n).astype(np.float32).astype(dtype) for _ in range(2))
    with tiling_overrides(**knobs):
        t = tiling_for((n,), x.dtype, reduction, profile)
    out = np.empty((n,) if reduction == "none" else (), x.dtype)
    out.reshape(-1).view(np.uint8).fill(0xA5)
    ws = np.zeros(t.workspace, np.uint8) if t.workspace else None
    return ascsim.launch(kernel, t.block_dim, x, y, out, ws, tiling=t.data,
                         tiling_key=t.tiling_key, sanitize=sanitize, outputs=(2,),
                         workspace=3 if ws is not None else None, profile=profile)


class SplitCombine(MSELossV2Sum):
    """MSELossV2Sum's cross-core combine (its CopyOut, the same instructions in the same order)
    cut into the steps a planted bug changes: StorePartial (every core, into a slot of
    `slotFloats` floats), Barrier (the SyncAll) and Combine (core 0 reads every slot, reduces,
    stores the total)."""

    slotFloats = BLOCK_FLOATS

    def CopyOut(self):
        self.uploadQue_.EnQue(self.outLocal_)
        partial = self.uploadQue_.DeQue[float]()
        self.StorePartial(partial, self.slotFloats * (self.coreNum_ + self.blockIdx_))
        self.uploadQue_.FreeTensor(partial)
        self.Barrier()
        if self.blockIdx_ != 0:
            return
        self.Combine()

    def StorePartial(self, partial, slot):
        DataCopy(self.workspaceGm_[slot], partial, BLOCK_FLOATS)  # the partial's store

    def Barrier(self):
        SyncAll()

    def Combine(self):
        count = self.slotFloats * self.coreNum_ + BLOCK_FLOATS - self.slotFloats
        partials = self.downloadQue_.AllocTensor[float]()
        DataCopy(partials, self.workspaceGm_[self.slotFloats * self.coreNum_], count)  # the read
        self.downloadQue_.EnQue(partials)
        partials = self.downloadQue_.DeQue[float]()
        ReduceSum(partials, partials, partials, count)
        result = self.uploadQue_.AllocTensor[float]()
        DataCopy(result, partials, BLOCK_FLOATS)
        self.downloadQue_.FreeTensor(partials)
        self.uploadQue_.EnQue(result)
        result = self.uploadQue_.DeQue[float]()
        DataCopyPad(self.outputGm_, result, DataCopyExtParams(1, 4, 0, 0, 0))  # the total's store
        self.uploadQue_.FreeTensor(result)
