"""MSELossV2, reduction sum: out = sum over i of (x[i] - y[i])^2, as the public kernel orders it.

Per tile: d = x - y, q = d * d (fp32), then ReduceSumBisect: while n > 8, fold the top part
onto the bottom at h = 8 * ceil(n / 16) (a multiple of 8, so 32-byte aligned, and h >= n / 2:
the two ranges never overlap), so element i ends up in lane i mod 8; scale the <= 8 partials
by reduceScale_ (1 for sum, fl32(1/N) for mean) and add them into the 8-float accumulator
outLocal_ (zeroed at Init).

Cross-core combine, once after the last tile: each core stores its accumulator to user
workspace bytes [32 * (coreNum + b), +32) (the first 32 * coreNum bytes stay unused, as in
the public kernel); a hard SyncAll (all earlier DMAs of every core done); core 0 copies the
8 * coreNum partials in, sums them with the count-form ReduceSum (a pairwise tree in each
64-float repeat, the repeat sums added in order), rounds to T (CAST_RINT) and stores the one
element with DataCopyPad. No atomics.

Difference from the public kernel: its float path stores partials[0] straight from the
download buffer after enqueuing that already-dequeued VECIN buffer again (ascsim's queue
model refuses an EnQue of a dequeued tensor); here float, like half / bfloat16_t, moves the
total into the upload buffer (an exact UB->UB DataCopy of the block) and stores it from
there through uploadQue (V->MTE3). The bits are the same.
"""

from ascsim.ascendc import *

from .mse_loss_v2_base import BLOCK_BYTES, BLOCK_FLOATS, MSELossV2Base


class MSELossV2Sum(MSELossV2Base, Generic[T]):
    def Init(self, input, target, output, workspace, tiling):
        self.InitSum(input, target, output, workspace, tiling)

    def InitSum(self, input, target, output, workspace, tiling):
        self.InitBase(input, target, tiling)
        self.outputGm_.SetGlobalBuffer(output)
        self.workspaceGm_.SetGlobalBuffer(workspace)
        self.pipe_.InitBuffer(self.uploadQue_, 1, BLOCK_BYTES)
        self.pipe_.InitBuffer(self.downloadQue_, 1, BLOCK_BYTES * self.coreNum_)
        self.outLocal_ = self.uploadQue_.AllocTensor[float]()
        Duplicate(self.outLocal_, float(0.0), BLOCK_FLOATS)
        self.reduceScale_ = float(1.0)

    def Process(self):
        for i in range(self.epochs_):
            offset = self.gmOffset_ + i * self.tileLength_
            self.CopyIn(offset, self.tileLength_)
            self.Compute(self.tileLength_)
        tailCount = self.TailCount()
        if tailCount > 0:
            offset = self.gmOffset_ + self.epochs_ * self.tileLength_
            self.CopyIn(offset, tailCount)
            self.Compute(tailCount)
        self.CopyOut()

    def Compute(self, n):
        if self.T is float:
            in0 = self.inQue0_.DeQue[float]()
            in1 = self.inQue1_.DeQue[float]()
            Sub(in0, in0, in1, n)
            Mul(in1, in0, in0, n)
            self.ReduceSumBisect(in1, n)
            self.inQue0_.FreeTensor(in0)
            self.inQue1_.FreeTensor(in1)
        else:
            cast0 = self.castBuf0_.Get[float]()
            cast1 = self.castBuf1_.Get[float]()
            Sub(cast0, cast0, cast1, n)
            Mul(cast1, cast0, cast0, n)
            self.ReduceSumBisect(cast1, n)

    def ReduceSumBisect(self, buf, n):
        while n > BLOCK_FLOATS:
            h = (n + 2 * BLOCK_FLOATS - 1) // (2 * BLOCK_FLOATS) * BLOCK_FLOATS
            Add(buf, buf, buf[h], n - h)
            n = h
        Muls(buf, buf, self.reduceScale_, n)
        Add(self.outLocal_, buf, self.outLocal_, n)

    def CopyOut(self):
        self.uploadQue_.EnQue(self.outLocal_)
        partial = self.uploadQue_.DeQue[float]()
        DataCopy(self.workspaceGm_[BLOCK_FLOATS * (self.coreNum_ + self.blockIdx_)], partial, BLOCK_FLOATS)
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
        # partials[0] holds the total (ReduceSum's scalar write); round it into the upload buffer
        result = self.uploadQue_.AllocTensor[self.T]()
        if self.T is float:
            DataCopy(result, partials, BLOCK_FLOATS)
        else:
            Cast(result, partials, RoundMode.CAST_RINT, 1)
        self.downloadQue_.FreeTensor(partials)
        self.uploadQue_.EnQue(result)
        result = self.uploadQue_.DeQue[self.T]()
        copyParams = DataCopyExtParams(1, sizeof(self.T), 0, 0, 0)
        DataCopyPad(self.outputGm_, result, copyParams)
        self.uploadQue_.FreeTensor(result)
