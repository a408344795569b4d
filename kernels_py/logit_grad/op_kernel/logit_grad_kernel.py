"""LogitGrad kernel: dx = dy / (x * (1 - x)) where x lies in [lo, hi], else a fill value.

Work split: the input is cut into tiles of TILE_ELEMENTS; core b takes a run of whole tiles,
the first (tiles mod cores) cores one more, and the partial tile (if any) ends the run of the
last core that has an extra tile (or of the last core). Tiles alternate between two UB tile
sets (ping, pong) with EVENT_ID0 / EVENT_ID1, so that the store of one tile overlaps the load
and the vector work of the next.

UB layout (bytes): ping = [0, 65536), pong = [65536, 131072), each an X region (x in fp32,
then the result) and a D region (dy in fp32, or the fp16/bf16 staging of both inputs); then
one fp32 scratch region [131072, 163840) shared by both sets, since only the vector pipe
touches it and the vector pipe runs tiles in order. Everything stays below the library temp
area at 188416 (Select writes there), and no cast's source partially overlaps its destination.
"""

import numpy as np

from ascsim.ascendc import *

TILE_ELEMENTS = 8192
FP32_TILE_BYTES = TILE_ELEMENTS * sizeof(float)
SET_BYTES = 2 * FP32_TILE_BYTES
D_OFFSET = FP32_TILE_BYTES
SCRATCH_OFFSET = 2 * SET_BYTES
UB_USED_BYTES = SCRATCH_OFFSET + FP32_TILE_BYTES
MASK_TWO_OFFSET = FP32_TILE_BYTES // 2
COMPARE_ALIGN = 64
MASK_BITS_PER_WORD = 16
QUIET_NAN = np.float32(np.nan)


class KernelLogitGrad(Generic[T]):
    def __init__(self):
        self.pipe_ = TPipe()
        self.ubBuf_ = TBuf[TPosition.VECCALC]()
        self.ub_ = LocalTensor[uint8_t]()
        self.xGm_ = GlobalTensor[self.T]()
        self.dyGm_ = GlobalTensor[self.T]()
        self.dxGm_ = GlobalTensor[self.T]()
        self.elementNum_ = 0
        self.coreNum_ = 1
        self.lo_ = float(0.0)
        self.hi_ = float(1.0)
        self.fill_ = float(0.0)

    def Init(self, x, dy, dx, tiling):
        self.elementNum_ = tiling.elementNum
        self.coreNum_ = int(tiling.needCoreNum)
        if tiling.eps >= float(0.0):
            self.lo_ = tiling.eps
            self.fill_ = float(0.0)
        else:
            self.lo_ = float(0.0)
            self.fill_ = QUIET_NAN
        self.hi_ = float(1.0) - self.lo_
        self.xGm_.SetGlobalBuffer(x, self.elementNum_)
        self.dyGm_.SetGlobalBuffer(dy, self.elementNum_)
        self.dxGm_.SetGlobalBuffer(dx, self.elementNum_)
        self.pipe_.InitBuffer(self.ubBuf_, UB_USED_BYTES)

    def Process(self):
        blockIdx = GetBlockIdx()
        if blockIdx >= self.coreNum_:
            return
        tileCount = (self.elementNum_ + TILE_ELEMENTS - 1) // TILE_ELEMENTS
        remainder = self.elementNum_ % TILE_ELEMENTS
        tilesPerCore = tileCount // self.coreNum_
        extraTiles = tileCount % self.coreNum_
        myTiles = tilesPerCore + 1 if blockIdx < extraTiles else tilesPerCore
        start = myTiles * blockIdx * TILE_ELEMENTS
        if extraTiles > 0 and blockIdx >= extraTiles:
            start += self.elementNum_ % (TILE_ELEMENTS * self.coreNum_)
        lastCore = self.coreNum_ - 1 if extraTiles == 0 else extraTiles - 1
        self.ub_ = self.ubBuf_.Get[uint8_t]()

        SetFlag[HardEvent.MTE3_MTE2](EVENT_ID0)
        SetFlag[HardEvent.MTE3_MTE2](EVENT_ID1)
        for i in range(myTiles):
            eventId = EVENT_ID0 if i % 2 == 0 else EVENT_ID1
            setBase = 0 if i % 2 == 0 else SET_BYTES
            calNum = TILE_ELEMENTS
            if remainder > 0 and blockIdx == lastCore and i == myTiles - 1:
                calNum = remainder
            offset = start + i * TILE_ELEMENTS
            self.CopyIn(offset, calNum, setBase, eventId)
            self.Compute(calNum, setBase)
            self.CopyOut(offset, calNum, setBase, eventId)
        WaitFlag[HardEvent.MTE3_MTE2](EVENT_ID0)
        WaitFlag[HardEvent.MTE3_MTE2](EVENT_ID1)

    def CopyIn(self, offset, calNum, setBase, eventId):
        copyParams = DataCopyExtParams(1, calNum * sizeof(self.T), 0, 0, 0)
        padParams = DataCopyPadExtParams[self.T](False, 0, 0, 0)
        WaitFlag[HardEvent.MTE3_MTE2](eventId)
        if self.T is float:
            DataCopyPad(self.ub_[setBase].ReinterpretCast[self.T](), self.xGm_[offset], copyParams, padParams)
            DataCopyPad(self.ub_[setBase + D_OFFSET].ReinterpretCast[self.T](), self.dyGm_[offset], copyParams, padParams)
        else:
            # fp16/bf16 inputs are staged in the D region: dy in its lower half, x in its upper half.
            staging = self.ub_[setBase + D_OFFSET].ReinterpretCast[self.T]()
            DataCopyPad(staging[TILE_ELEMENTS], self.xGm_[offset], copyParams, padParams)
            DataCopyPad(staging, self.dyGm_[offset], copyParams, padParams)
        SetFlag[HardEvent.MTE2_V](eventId)
        WaitFlag[HardEvent.MTE2_V](eventId)

    def Compute(self, calNum, setBase):
        xFp32 = self.ub_[setBase].ReinterpretCast[float]()
        dyFp32 = LocalTensor[float]()
        tmp = LocalTensor[float]()
        if self.T is float:
            dyFp32 = self.ub_[setBase + D_OFFSET].ReinterpretCast[float]()
            tmp = self.ub_[SCRATCH_OFFSET].ReinterpretCast[float]()
        else:
            # Widen into the X region and the scratch; the D region then becomes the scratch.
            staging = self.ub_[setBase + D_OFFSET].ReinterpretCast[self.T]()
            dyFp32 = self.ub_[SCRATCH_OFFSET].ReinterpretCast[float]()
            tmp = self.ub_[setBase + D_OFFSET].ReinterpretCast[float]()
            Cast(xFp32, staging[TILE_ELEMENTS], RoundMode.CAST_NONE, calNum)
            PipeBarrier[PIPE_V]()
            Cast(dyFp32, staging, RoundMode.CAST_NONE, calNum)
            PipeBarrier[PIPE_V]()
        # q = dy / (x * (1 - x)), in the reference's operation order.
        Muls(tmp, xFp32, -1.0, calNum)
        PipeBarrier[PIPE_V]()
        Adds(tmp, tmp, 1.0, calNum)
        PipeBarrier[PIPE_V]()
        Mul(tmp, xFp32, tmp, calNum)
        PipeBarrier[PIPE_V]()
        Div(dyFp32, dyFp32, tmp, calNum)
        PipeBarrier[PIPE_V]()
        # valid = (x >= lo) && (x <= hi); compares run over whole 256-byte repeats.
        alignedNum = (calNum + COMPARE_ALIGN - 1) // COMPARE_ALIGN * COMPARE_ALIGN
        maskOne = tmp.ReinterpretCast[uint8_t]()
        maskTwo = maskOne[MASK_TWO_OFFSET]
        CompareScalar(maskOne, xFp32, self.lo_, CMPMODE.GE, alignedNum)
        PipeBarrier[PIPE_V]()
        CompareScalar(maskTwo, xFp32, self.hi_, CMPMODE.LE, alignedNum)
        PipeBarrier[PIPE_V]()
        wordsOne = maskOne.ReinterpretCast[uint16_t]()
        wordsTwo = maskTwo.ReinterpretCast[uint16_t]()
        And(wordsOne, wordsOne, wordsTwo, alignedNum // MASK_BITS_PER_WORD)
        PipeBarrier[PIPE_V]()
        Select(xFp32, maskOne, dyFp32, self.fill_, SELMODE.VSEL_TENSOR_SCALAR_MODE, calNum)
        PipeBarrier[PIPE_V]()
        if self.T is half:
            Cast(self.ub_[setBase + D_OFFSET].ReinterpretCast[self.T](), xFp32, RoundMode.CAST_NONE, calNum)
            PipeBarrier[PIPE_V]()
        elif self.T is bfloat16_t:
            Cast(self.ub_[setBase + D_OFFSET].ReinterpretCast[self.T](), xFp32, RoundMode.CAST_RINT, calNum)
            PipeBarrier[PIPE_V]()

    def CopyOut(self, offset, calNum, setBase, eventId):
        copyParams = DataCopyExtParams(1, calNum * sizeof(self.T), 0, 0, 0)
        SetFlag[HardEvent.V_MTE3](eventId)
        WaitFlag[HardEvent.V_MTE3](eventId)
        if self.T is float:
            DataCopyPad(self.dxGm_[offset], self.ub_[setBase].ReinterpretCast[self.T](), copyParams)
        else:
            DataCopyPad(self.dxGm_[offset], self.ub_[setBase + D_OFFSET].ReinterpretCast[self.T](), copyParams)
        SetFlag[HardEvent.MTE3_MTE2](eventId)
