"""MSELossV2 kernel, common part: l = (x - y)^2 element-wise, in fp32.

Work split (from the tiling): core b starts at element coreLength * b (a whole number of
32-byte blocks, so every core starts aligned) and runs `epochs` full tiles of tileLength
elements, then a tail tile of tailTileLength elements if that is not 0. The last core
(b == coreNum - 1) takes epochsForLastCore / tailTileLengthForLastCore instead, plus the
tailElems elements after the last whole block, which join its tail tile.

UB layout, from 0 in InitBuffer order: inQue0 (input) and inQue1 (target), bufferNum
buffers of tileLength * sizeof(T) each; for half / bfloat16_t two fp32 cast buffers of
tileLength floats; then the variant's queues (None: dstQue, bufferNum buffers of a tile;
Sum / Mean: uploadQue of 32 bytes, the 8-float accumulator, and downloadQue of 32 bytes per
core, for the cross-core combine).

Per tile, CopyIn: for half / bfloat16_t each input is copied in, dequeued at once, widened
exactly into its cast buffer and freed; for float both are copied in and dequeued by the
variant's Compute. Syncs: TQue EnQue/DeQue only, V->V ordering left to the compiler's
auto-sync, as in the public kernel.

Difference from the public kernel: a copy whose length is not a whole number of 32-byte
blocks (only the last core's tail, when tailElems > 0) goes through DataCopyPad with its
exact byte count, so no core reads or writes past element N of any GM tensor (the public
kernel moves one more whole block there).
"""

from ascsim.ascendc import *

QUE_DEPTH = 1
BLOCK_BYTES = 32
BLOCK_FLOATS = 8


class MSELossV2Base(Generic[T]):
    def __init__(self):
        self.pipe_ = TPipe()
        self.inQue0_ = TQue[QuePosition.VECIN, QUE_DEPTH]()
        self.inQue1_ = TQue[QuePosition.VECIN, QUE_DEPTH]()
        self.castBuf0_ = TBuf[TPosition.VECCALC]()
        self.castBuf1_ = TBuf[TPosition.VECCALC]()
        self.dstQue_ = TQue[QuePosition.VECOUT, QUE_DEPTH]()
        self.uploadQue_ = TQue[QuePosition.VECOUT, QUE_DEPTH]()
        self.downloadQue_ = TQue[QuePosition.VECIN, QUE_DEPTH]()
        self.outLocal_ = LocalTensor[float]()
        self.inputGm_ = GlobalTensor[self.T]()
        self.targetGm_ = GlobalTensor[self.T]()
        self.outputGm_ = GlobalTensor[self.T]()
        self.workspaceGm_ = GlobalTensor[float]()
        self.blockIdx_ = 0
        self.coreNum_ = 1
        self.bufferNum_ = 1
        self.tileLength_ = 0
        self.epochs_ = 0
        self.tailTileLength_ = 0
        self.tailElems_ = 0
        self.gmOffset_ = 0
        self.reduceScale_ = float(1.0)

    def InitBase(self, input, target, tiling):
        self.blockIdx_ = GetBlockIdx()
        self.coreNum_ = tiling.coreNum
        self.bufferNum_ = tiling.bufferNum
        self.tileLength_ = tiling.tileLength
        self.epochs_ = tiling.epochs
        self.tailTileLength_ = tiling.tailTileLength
        self.tailElems_ = 0
        self.gmOffset_ = tiling.coreLength * self.blockIdx_
        if self.blockIdx_ == self.coreNum_ - 1:
            self.epochs_ = tiling.epochsForLastCore
            self.tailTileLength_ = tiling.tailTileLengthForLastCore
            self.tailElems_ = tiling.tailElems
        self.inputGm_.SetGlobalBuffer(input)
        self.targetGm_.SetGlobalBuffer(target)
        self.pipe_.InitBuffer(self.inQue0_, self.bufferNum_, self.tileLength_ * sizeof(self.T))
        self.pipe_.InitBuffer(self.inQue1_, self.bufferNum_, self.tileLength_ * sizeof(self.T))
        if self.T is float:
            return
        else:
            self.pipe_.InitBuffer(self.castBuf0_, self.tileLength_ * sizeof(float))
            self.pipe_.InitBuffer(self.castBuf1_, self.tileLength_ * sizeof(float))

    # The tail tile's element count: the last core adds the elements after the last block.
    def TailCount(self):
        return self.tailTileLength_ + self.tailElems_

    # GM -> UB: whole blocks by DataCopy; a partial last block by DataCopyPad, exact bytes.
    def CopyGmToUb(self, dst, src, n):
        if n * sizeof(self.T) % BLOCK_BYTES == 0:
            DataCopy(dst, src, n)
        else:
            copyParams = DataCopyExtParams(1, n * sizeof(self.T), 0, 0, 0)
            padParams = DataCopyPadExtParams[self.T](False, 0, 0, 0)
            DataCopyPad(dst, src, copyParams, padParams)

    # UB -> GM: whole blocks by DataCopy; a partial last block by DataCopyPad, exact bytes.
    def CopyUbToGm(self, dst, src, n):
        if n * sizeof(self.T) % BLOCK_BYTES == 0:
            DataCopy(dst, src, n)
        else:
            copyParams = DataCopyExtParams(1, n * sizeof(self.T), 0, 0, 0)
            DataCopyPad(dst, src, copyParams)

    def CopyIn(self, offset, n):
        in0 = self.inQue0_.AllocTensor[self.T]()
        self.CopyGmToUb(in0, self.inputGm_[offset], n)
        self.inQue0_.EnQue(in0)
        if self.T is float:
            in1 = self.inQue1_.AllocTensor[self.T]()
            self.CopyGmToUb(in1, self.targetGm_[offset], n)
            self.inQue1_.EnQue(in1)
        else:
            # widen at once: the cast buffers are single, so double buffering gains little here
            x = self.inQue0_.DeQue[self.T]()
            Cast(self.castBuf0_.Get[float](), x, RoundMode.CAST_NONE, n)
            self.inQue0_.FreeTensor(x)
            in1 = self.inQue1_.AllocTensor[self.T]()
            self.CopyGmToUb(in1, self.targetGm_[offset], n)
            self.inQue1_.EnQue(in1)
            y = self.inQue1_.DeQue[self.T]()
            Cast(self.castBuf1_.Get[float](), y, RoundMode.CAST_NONE, n)
            self.inQue1_.FreeTensor(y)
