"""SigmoidCrossEntropyWithLogitsGradV2 kernel: the gradient of BCE-with-logits w.r.t. the logits,
  p = 1 / (1 + exp(-x)),  g = p - y  or, with pos_weight, g = (pw*y + 1 - y) * p - pw*y,
  out = ((g * dout) * weight) * globalScale.
HAS_WEIGHT / HAS_POS_WEIGHT are compile-time flags: four variants per dtype.

Work split (from the tiling): the first tailBlockNum cores are "big" and take bigCoreDataNum
elements, the others smallCoreDataNum; each core cuts its run into tiles of tileDataNum
elements, the last one holding the tail. The counts are whole 32-byte blocks, so the last
core's run is cut back to end exactly at totalDataNum: its last tile may then not be a whole
block and goes through DataCopyPad with its exact byte count (DataCopy would drop the partial
block), so no core reads or writes past the end of any GM tensor.

Per tile: CopyIn (TQue VECIN: predict, target, dout, [weight], [posWeight]) -> Compute ->
CopyOut (TQue VECOUT gradient). The queues carry the MTE2/V/MTE3 syncs; ordering within V is
left to the compiler's auto-sync (no explicit PipeBarrier), as in the public kernel.

UB layout, from 0 in InitBuffer order (tb = tileDataNum * sizeof(T), bufferNum buffers each):
predict, target, dout, [weight], [posWeight], gradient, then the fp32 calc area: 5 slots of
tileDataNum floats for half/bfloat16_t (inputs are widened there), 3 for float in lite mode
(float works in the input buffers themselves, which it overwrites).

Differences from the public kernel: the exact last-core end (above); vector instructions run
over the tile's element count (the public fp32 path rounds it up to 16 and computes a few
garbage elements); no early return that would leave a tile's queues unbalanced; BUFFER_NUM
comes from the tiling.
"""

from ascsim.ascendc import *

QUE_DEPTH = 1
FP32_BUF_NUM = 5
FP32_LITE_BUF_NUM = 3
BLOCK_BYTES = 32
FP32_DATACOPY_TILE_LIMIT = 1024
ONE = float(1.0)
MINUS_ONE = float(-1.0)

HAS_WEIGHT = TypeVar("HAS_WEIGHT")
HAS_POS_WEIGHT = TypeVar("HAS_POS_WEIGHT")


class KernelSigmoidCrossEntropyWithLogitsGradV2(Generic[T, HAS_WEIGHT, HAS_POS_WEIGHT]):
    def __init__(self):
        self.pipe_ = TPipe()
        self.predictQue_ = TQue[QuePosition.VECIN, QUE_DEPTH]()
        self.targetQue_ = TQue[QuePosition.VECIN, QUE_DEPTH]()
        self.doutQue_ = TQue[QuePosition.VECIN, QUE_DEPTH]()
        self.weightQue_ = TQue[QuePosition.VECIN, QUE_DEPTH]()
        self.posWeightQue_ = TQue[QuePosition.VECIN, QUE_DEPTH]()
        self.gradientQue_ = TQue[QuePosition.VECOUT, QUE_DEPTH]()
        self.calcBuf_ = TBuf[TPosition.VECCALC]()
        self.predictGm_ = GlobalTensor[self.T]()
        self.targetGm_ = GlobalTensor[self.T]()
        self.doutGm_ = GlobalTensor[self.T]()
        self.weightGm_ = GlobalTensor[self.T]()
        self.posWeightGm_ = GlobalTensor[self.T]()
        self.gradientGm_ = GlobalTensor[self.T]()
        self.globalOffset_ = 0
        self.coreDataNum_ = 0
        self.tileNum_ = 0
        self.tileDataNum_ = 0
        self.tailDataNum_ = 0
        self.globalScale_ = float(1.0)

    def Init(self, predict, target, dout, weight, posWeight, gradient, tiling):
        blockIdx = GetBlockIdx()
        self.tileDataNum_ = tiling.tileDataNum
        self.globalScale_ = tiling.globalScale
        self.globalOffset_ = tiling.bigCoreDataNum * blockIdx
        if blockIdx < tiling.tailBlockNum:
            self.coreDataNum_ = tiling.bigCoreDataNum
            self.tileNum_ = tiling.finalBigTileNum
            self.tailDataNum_ = tiling.bigTailDataNum
        else:
            self.coreDataNum_ = tiling.smallCoreDataNum
            self.tileNum_ = tiling.finalSmallTileNum
            self.tailDataNum_ = tiling.smallTailDataNum
            self.globalOffset_ -= (tiling.bigCoreDataNum - tiling.smallCoreDataNum) * (blockIdx - tiling.tailBlockNum)
        # The block split pads N up to whole 32-byte blocks: cut the last core back to N.
        if self.globalOffset_ + self.coreDataNum_ > tiling.totalDataNum:
            overshoot = self.globalOffset_ + self.coreDataNum_ - tiling.totalDataNum
            self.coreDataNum_ -= overshoot
            self.tailDataNum_ -= overshoot
        self.predictGm_.SetGlobalBuffer(predict, tiling.totalDataNum)
        self.targetGm_.SetGlobalBuffer(target, tiling.totalDataNum)
        self.doutGm_.SetGlobalBuffer(dout, tiling.totalDataNum)
        if self.HAS_WEIGHT:
            self.weightGm_.SetGlobalBuffer(weight, tiling.totalDataNum)
        if self.HAS_POS_WEIGHT:
            self.posWeightGm_.SetGlobalBuffer(posWeight, tiling.totalDataNum)
        self.gradientGm_.SetGlobalBuffer(gradient, tiling.totalDataNum)

        tileBytes = self.tileDataNum_ * sizeof(self.T)
        self.pipe_.InitBuffer(self.predictQue_, tiling.bufferNum, tileBytes)
        self.pipe_.InitBuffer(self.targetQue_, tiling.bufferNum, tileBytes)
        self.pipe_.InitBuffer(self.doutQue_, tiling.bufferNum, tileBytes)
        if self.HAS_WEIGHT:
            self.pipe_.InitBuffer(self.weightQue_, tiling.bufferNum, tileBytes)
        if self.HAS_POS_WEIGHT:
            self.pipe_.InitBuffer(self.posWeightQue_, tiling.bufferNum, tileBytes)
        self.pipe_.InitBuffer(self.gradientQue_, tiling.bufferNum, tileBytes)
        calcSlots = FP32_BUF_NUM
        if self.T is float and tiling.fp32_lite_mode == 1:
            calcSlots = FP32_LITE_BUF_NUM
        self.pipe_.InitBuffer(self.calcBuf_, calcSlots * self.tileDataNum_ * sizeof(float))

    def Process(self):
        for i in range(self.tileNum_):
            processDataNum = self.tailDataNum_ if i == self.tileNum_ - 1 else self.tileDataNum_
            self.CopyIn(i, processDataNum)
            self.Compute(processDataNum)
            self.CopyOut(i, processDataNum)

    def UseDataCopy(self, processDataNum):
        # DataCopy moves whole 32-byte blocks only; a partial last block needs DataCopyPad.
        if processDataNum * sizeof(self.T) % BLOCK_BYTES != 0:
            return False
        if processDataNum == self.tileDataNum_:
            return True
        return self.T is float and self.tileDataNum_ < FP32_DATACOPY_TILE_LIMIT

    def CopyTileIn(self, dst, src, processDataNum):
        if self.UseDataCopy(processDataNum):
            DataCopy(dst, src, processDataNum)
        else:
            copyParams = DataCopyExtParams(1, processDataNum * sizeof(self.T), 0, 0, 0)
            padParams = DataCopyPadExtParams[self.T](False, 0, 0, 0)
            DataCopyPad(dst, src, copyParams, padParams)

    def CopyIn(self, progress, processDataNum):
        offset = self.globalOffset_ + progress * self.tileDataNum_
        predictLocal = self.predictQue_.AllocTensor[self.T]()
        self.CopyTileIn(predictLocal, self.predictGm_[offset], processDataNum)
        self.predictQue_.EnQue(predictLocal)
        targetLocal = self.targetQue_.AllocTensor[self.T]()
        self.CopyTileIn(targetLocal, self.targetGm_[offset], processDataNum)
        self.targetQue_.EnQue(targetLocal)
        doutLocal = self.doutQue_.AllocTensor[self.T]()
        self.CopyTileIn(doutLocal, self.doutGm_[offset], processDataNum)
        self.doutQue_.EnQue(doutLocal)
        if self.HAS_WEIGHT:
            weightLocal = self.weightQue_.AllocTensor[self.T]()
            self.CopyTileIn(weightLocal, self.weightGm_[offset], processDataNum)
            self.weightQue_.EnQue(weightLocal)
        if self.HAS_POS_WEIGHT:
            posWeightLocal = self.posWeightQue_.AllocTensor[self.T]()
            self.CopyTileIn(posWeightLocal, self.posWeightGm_[offset], processDataNum)
            self.posWeightQue_.EnQue(posWeightLocal)

    def Compute(self, processDataNum):
        if self.T is float:
            self.ComputeLite(processDataNum)
        else:
            self.ComputeWiden(processDataNum)

    # half / bfloat16_t: widen into the fp32 calc slots S0..S4, compute, narrow into the output.
    def ComputeWiden(self, calCount):
        predictLocal = self.predictQue_.DeQue[self.T]()
        targetLocal = self.targetQue_.DeQue[self.T]()
        doutLocal = self.doutQue_.DeQue[self.T]()
        weightLocal = LocalTensor[self.T]()
        posWeightLocal = LocalTensor[self.T]()
        if self.HAS_WEIGHT:
            weightLocal = self.weightQue_.DeQue[self.T]()
        if self.HAS_POS_WEIGHT:
            posWeightLocal = self.posWeightQue_.DeQue[self.T]()
        calc = self.calcBuf_.Get[float]()
        s0 = calc
        s1 = calc[self.tileDataNum_]
        s2 = calc[2 * self.tileDataNum_]
        s3 = calc[3 * self.tileDataNum_]
        s4 = calc[4 * self.tileDataNum_]
        Cast(s0, predictLocal, RoundMode.CAST_NONE, calCount)
        Cast(s1, targetLocal, RoundMode.CAST_NONE, calCount)
        if self.HAS_POS_WEIGHT:
            Cast(s3, posWeightLocal, RoundMode.CAST_NONE, calCount)
            Mul(s2, s3, s1, calCount)
            Adds(s4, s2, ONE, calCount)
            Sub(s4, s4, s1, calCount)
            Muls(s3, s0, MINUS_ONE, calCount)
            Exp(s3, s3, calCount)
            Adds(s1, s3, ONE, calCount)
            Duplicate(s3, ONE, calCount)
            Div(s0, s3, s1, calCount)
            Mul(s4, s4, s0, calCount)
            Sub(s0, s4, s2, calCount)
        else:
            Muls(s2, s0, MINUS_ONE, calCount)
            Exp(s2, s2, calCount)
            Adds(s4, s2, ONE, calCount)
            Duplicate(s3, ONE, calCount)
            Div(s0, s3, s4, calCount)
            Sub(s0, s0, s1, calCount)
        Cast(s1, doutLocal, RoundMode.CAST_NONE, calCount)
        Mul(s0, s0, s1, calCount)
        if self.HAS_WEIGHT:
            Cast(s2, weightLocal, RoundMode.CAST_NONE, calCount)
            Mul(s0, s0, s2, calCount)
        if self.globalScale_ != ONE:
            Muls(s0, s0, self.globalScale_, calCount)
        gradientLocal = self.gradientQue_.AllocTensor[self.T]()
        if self.T is bfloat16_t:
            Cast(gradientLocal, s0, RoundMode.CAST_RINT, calCount)
        else:
            Cast(gradientLocal, s0, RoundMode.CAST_NONE, calCount)
        self.gradientQue_.EnQue(gradientLocal)
        if self.HAS_WEIGHT:
            self.weightQue_.FreeTensor(weightLocal)
        if self.HAS_POS_WEIGHT:
            self.posWeightQue_.FreeTensor(posWeightLocal)
        self.predictQue_.FreeTensor(predictLocal)
        self.targetQue_.FreeTensor(targetLocal)
        self.doutQue_.FreeTensor(doutLocal)

    # float ("lite"): compute in the input buffers and 3 calc slots, then copy UB->UB to the output.
    def ComputeLite(self, calCount):
        xLocal = self.predictQue_.DeQue[float]()
        yLocal = self.targetQue_.DeQue[float]()
        doutLocal = self.doutQue_.DeQue[float]()
        weightLocal = LocalTensor[float]()
        posWeightLocal = LocalTensor[float]()
        if self.HAS_WEIGHT:
            weightLocal = self.weightQue_.DeQue[float]()
        if self.HAS_POS_WEIGHT:
            posWeightLocal = self.posWeightQue_.DeQue[float]()
        calc = self.calcBuf_.Get[float]()
        tmp1 = calc
        tmp2 = calc[self.tileDataNum_]
        tmp3 = calc[2 * self.tileDataNum_]
        if self.HAS_POS_WEIGHT:
            Mul(tmp1, posWeightLocal, yLocal, calCount)
            Adds(tmp3, tmp1, ONE, calCount)
            Sub(tmp3, tmp3, yLocal, calCount)
            Muls(tmp2, xLocal, MINUS_ONE, calCount)
            Exp(tmp2, tmp2, calCount)
            Adds(yLocal, tmp2, ONE, calCount)
            Duplicate(tmp2, ONE, calCount)
            Div(xLocal, tmp2, yLocal, calCount)
            Mul(tmp3, tmp3, xLocal, calCount)
            Sub(xLocal, tmp3, tmp1, calCount)
        else:
            Muls(tmp1, xLocal, MINUS_ONE, calCount)
            Exp(tmp1, tmp1, calCount)
            Adds(tmp3, tmp1, ONE, calCount)
            Duplicate(tmp2, ONE, calCount)
            Div(xLocal, tmp2, tmp3, calCount)
            Sub(xLocal, xLocal, yLocal, calCount)
        Mul(xLocal, xLocal, doutLocal, calCount)
        if self.HAS_WEIGHT:
            Mul(xLocal, xLocal, weightLocal, calCount)
        if self.globalScale_ != ONE:
            Muls(xLocal, xLocal, self.globalScale_, calCount)
        gradientLocal = self.gradientQue_.AllocTensor[float]()
        # A UB->UB DataCopy moves whole 32-byte blocks: round the count up to one (CopyOut
        # stores only calCount elements).
        copyCount = (calCount * sizeof(float) + BLOCK_BYTES - 1) // BLOCK_BYTES * BLOCK_BYTES // sizeof(float)
        DataCopy(gradientLocal, xLocal, copyCount)
        self.gradientQue_.EnQue(gradientLocal)
        if self.HAS_WEIGHT:
            self.weightQue_.FreeTensor(weightLocal)
        if self.HAS_POS_WEIGHT:
            self.posWeightQue_.FreeTensor(posWeightLocal)
        self.predictQue_.FreeTensor(xLocal)
        self.targetQue_.FreeTensor(yLocal)
        self.doutQue_.FreeTensor(doutLocal)

    def CopyOut(self, progress, processDataNum):
        offset = self.globalOffset_ + progress * self.tileDataNum_
        gradientLocal = self.gradientQue_.DeQue[self.T]()
        if self.UseDataCopy(processDataNum):
            DataCopy(self.gradientGm_[offset], gradientLocal, processDataNum)
        else:
            copyParams = DataCopyExtParams(1, processDataNum * sizeof(self.T), 0, 0, 0)
            DataCopyPad(self.gradientGm_[offset], gradientLocal, copyParams)
        self.gradientQue_.FreeTensor(gradientLocal)
