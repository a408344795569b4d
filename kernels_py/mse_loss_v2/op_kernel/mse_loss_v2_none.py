"""MSELossV2, reduction none: out[i] = (x[i] - y[i])^2, in fp32, rounded to T with CAST_RINT
(round to nearest even) for half / bfloat16_t.

Tiles as in the base; the output goes through dstQue (VECOUT) to GM. The last core's tail
tile holds tailTileLength + tailElems elements and writes exactly those (the public kernel
rounds the tail up to a whole block and writes up to 30 bytes past the end of out).
"""

from ascsim.ascendc import *

from .mse_loss_v2_base import MSELossV2Base


class MSELossV2None(MSELossV2Base, Generic[T]):
    def Init(self, input, target, output, tiling):
        self.InitBase(input, target, tiling)
        self.outputGm_.SetGlobalBuffer(output)
        self.pipe_.InitBuffer(self.dstQue_, self.bufferNum_, self.tileLength_ * sizeof(self.T))

    def Process(self):
        for i in range(self.epochs_):
            offset = self.gmOffset_ + i * self.tileLength_
            self.CopyIn(offset, self.tileLength_)
            self.Compute(self.tileLength_)
            self.CopyOut(offset, self.tileLength_)
        tailCount = self.TailCount()
        if tailCount > 0:
            offset = self.gmOffset_ + self.epochs_ * self.tileLength_
            self.CopyIn(offset, tailCount)
            self.Compute(tailCount)
            self.CopyOut(offset, tailCount)

    def Compute(self, n):
        if self.T is float:
            in0 = self.inQue0_.DeQue[float]()
            in1 = self.inQue1_.DeQue[float]()
            Sub(in1, in0, in1, n)
            self.inQue0_.FreeTensor(in0)
            dst = self.dstQue_.AllocTensor[float]()
            Mul(dst, in1, in1, n)
            self.inQue1_.FreeTensor(in1)
            self.dstQue_.EnQue(dst)
        else:
            cast0 = self.castBuf0_.Get[float]()
            cast1 = self.castBuf1_.Get[float]()
            Sub(cast0, cast0, cast1, n)
            Mul(cast1, cast0, cast0, n)
            dst = self.dstQue_.AllocTensor[self.T]()
            Cast(dst, cast1, RoundMode.CAST_RINT, n)
            self.dstQue_.EnQue(dst)

    def CopyOut(self, offset, n):
        dst = self.dstQue_.DeQue[self.T]()
        self.CopyUbToGm(self.outputGm_[offset], dst, n)
        self.dstQue_.FreeTensor(dst)
