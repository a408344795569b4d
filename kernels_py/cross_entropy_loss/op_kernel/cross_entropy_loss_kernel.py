"""CrossEntropyLoss kernel (A2): per row of input (N, C), log_prob = x - lse with
lse = ln(sum exp(x - max)) + max, the target's log-prob g = log_prob[t] (0 for ignore_index),
w = weight[t] (1 without weight, 0 for ignore_index), and with label smoothing ls the row's
smoothing sum sigma = sum_c log_prob[c] * weight[c]; loss_r = -w g, or
(ls - 1) w g - (ls / C) sigma. reduction none stores loss_r; sum and mean reduce per core,
put the partials into the workspace, SyncAll, and core 0 combines them (mean divides by the
sum of w).

Work split (tiling): the first frontCoreNum cores take frontBatchNum rows, the others
tailBatchNum. A row is read in chunks of inputUbSize elements (ubLoopNum full ones, then
ubTailNum), three times: for the max, for the exp-sum, and for the log-probs; each chunk is
reduced in 8192-element sub-blocks by GetReduceMax / GetReduceSum (the 8192, <= 4096 and
4096 < len < 8192 recipes) whose sums go into a scalar accumulator in order.

UB: inQueue (one inputUbSize buffer of T, allocated once and freed at the end, never
queued: every cross-pipe step is an immediate SetFlag / WaitFlag pair on a FetchEventID
id), then calcBuf carved as castTmpBuf
(fp32 copy of a chunk, half / bf16 only), probOutBuf (narrowed log-prob chunk and the none loss
vector), weight4SmoothingBuf, reduceCalc (8 floats), reduceRes (8), lnLocal, weightLocal,
smoothingLossLocal (F floats each, rounded up to 8) and workLocal (1024 floats).

Where ours differs from the public kernel (its latent bugs, which live in tests/bugs only):
- a target that is neither ignore_index nor in [0, C) gives NaN for that row (g = w = NaN;
  nothing is read at t), where the public kernel reads weight[t] and UB out of bounds and keeps
  the previous row's g; g is reset for every row;
- probOutBuf holds the none loss vector too (tiling's probOutBufByte);
- every per-core reduction uses workLocal as its scratch (the public mean reduces lnLocal over
  the input buffer and the smoothing sum over itself);
- each 4-byte workspace store is followed by an MTE3 -> V wait before its UB source is written
  again (the public fp32 mean with smoothing and no weight overwrites the weight sum while
  it is being stored), and the smoothing sum has its own slot (reduceCalc), not the
  zero-length fp32 castTmpBuf;
- core 0 copies in exactly the workspace slots the cores wrote (the public copies all 192
  floats) and stores the final loss with DataCopyPad (the public writes it with a scalar GM
  store that relies on the end-of-kernel dcache flush);
- the tiling refuses more than 8192 rows per core or more than 64 cores;
- the input buffer (and the tiling's castTmpBufByte) is whole 256-byte repeats: the masked
  reductions of a chunk's last partial repeat address the whole repeat.
"""

import numpy as np

from ascsim.ascendc import *

MIN_FLT = float(-3.4028235e38)
QUIET_NAN = np.float32(np.nan)
VEC_MAX_LEN = 8192
HALF_VEC_LEN = 4096
REPEAT_FLOATS = 64
REPEAT_BYTES = 256
BLOCK_FLOATS = 8
# the 8192 recipe: 128 BlockReduce repeats -> 1024 values, 16 -> 128, 2 -> 16, one masked repeat
FULL_FIRST_REPEATS = 128
FULL_SECOND_REPEATS = 16
FULL_THIRD_REPEATS = 2
FULL_LAST_MASK = 16
# the first 4096 of a 4096 < len < 8192 piece: 64 repeats -> 512 values, 8 -> 64, one repeat
HALF_FIRST_REPEATS = 64
HALF_SECOND_REPEATS = 8
REDUCE_SLOT_FLOATS = 8
WORK_FLOATS = 1024
WS_LN_SLOT = 0
WS_WEIGHT_SLOT = 64
WS_SMOOTH_SLOT = 128
FINAL_CAST_OFFSET = 768
DATA_COPY_ALIGN = 32
REDUCTION_NONE = 0
REDUCTION_MEAN = 1
REDUCTION_SUM = 2


class KernelCrossEntropyLoss(Generic[T]):
    def __init__(self):
        self.pipe = TPipe()
        self.inQueue = TQue[QuePosition.VECIN, 1]()
        self.calcBuf = TBuf[TPosition.VECCALC]()
        self.inputGm = GlobalTensor[self.T]()
        self.targetGm = GlobalTensor[int64_t]()
        self.weightGm = GlobalTensor[float]()
        self.lossGm = GlobalTensor[self.T]()
        self.logProbGm = GlobalTensor[self.T]()
        self.wsGm = GlobalTensor[float]()
        self.inputLocal = LocalTensor[self.T]()
        self.castTmpBuf = LocalTensor[float]()
        self.probOutBuf = LocalTensor[self.T]()
        self.weight4SmoothingBuf = LocalTensor[float]()
        self.reduceCalc = LocalTensor[float]()
        self.reduceRes = LocalTensor[float]()
        self.lnLocal = LocalTensor[float]()
        self.weightLocal = LocalTensor[float]()
        self.smoothingLossLocal = LocalTensor[float]()
        self.workLocal = LocalTensor[float]()
        self.calcLocal = LocalTensor[float]()
        self.blockIdx = 0
        self.usedCoreNum = 0
        self.batchNum = 0
        self.startRow = 0
        self.targetNum = 0
        self.inputUbSize = 0
        self.castTmpBufByte = 0
        self.probOutBufByte = 0
        self.lnTmpBufSize = 0
        self.weight4SmoothingBufSize = 0
        self.totalTmpBufByte = 0
        self.ubLoopNum = 0
        self.ubTailNum = 0
        self.vecLoopNum = 0
        self.vecTailNum = 0
        self.tailVecLoopNum = 0
        self.tailVecTailNum = 0
        self.reduction = 0
        self.ignoreIndex = 0
        self.labelSmoothing = float(0.0)
        self.defaultWeight = 0
        self.isSmoothing = False

    def Init(self, input, target, weight, loss, logProb, workspace, tiling):
        self.blockIdx = GetBlockIdx()
        self.usedCoreNum = GetBlockNum()
        self.targetNum = tiling.targetNum
        self.inputUbSize = tiling.inputUbSize
        self.castTmpBufByte = tiling.castTmpBufByte
        self.probOutBufByte = tiling.probOutBufByte
        self.lnTmpBufSize = tiling.lnTmpBufSize
        self.weight4SmoothingBufSize = tiling.weight4SmoothingBufSize
        self.totalTmpBufByte = tiling.totalTmpBufByte
        self.ubLoopNum = tiling.ubLoopNum
        self.ubTailNum = tiling.ubTailNum
        self.vecLoopNum = tiling.vecLoopNum
        self.vecTailNum = tiling.vecTailNum
        self.tailVecLoopNum = tiling.tailVecLoopNum
        self.tailVecTailNum = tiling.tailVecTailNum
        self.reduction = tiling.reduction
        self.ignoreIndex = tiling.ignoreIndex
        self.labelSmoothing = tiling.labelSmoothing
        self.defaultWeight = tiling.defaultWeight
        self.isSmoothing = self.labelSmoothing > float(0.0)
        if tiling.tailCoreNum == 0 or self.blockIdx < tiling.frontCoreNum:
            self.batchNum = tiling.frontBatchNum
            self.startRow = self.blockIdx * tiling.frontBatchNum
        else:
            self.batchNum = tiling.tailBatchNum
            self.startRow = tiling.frontCoreNum * tiling.frontBatchNum + (self.blockIdx - tiling.frontCoreNum) * tiling.tailBatchNum
        self.inputGm.SetGlobalBuffer(input)
        self.inputGm = self.inputGm[self.startRow * self.targetNum]
        self.logProbGm.SetGlobalBuffer(logProb)
        self.logProbGm = self.logProbGm[self.startRow * self.targetNum]
        self.lossGm.SetGlobalBuffer(loss)
        if self.reduction == REDUCTION_NONE:
            self.lossGm = self.lossGm[self.startRow]
        self.targetGm.SetGlobalBuffer(target)
        if self.defaultWeight == 0:
            self.weightGm.SetGlobalBuffer(weight)
        if self.reduction != REDUCTION_NONE:
            self.wsGm.SetGlobalBuffer(GetUserWorkspace(workspace))
        self.InitUB()

    def InitUB(self):
        # whole 256-byte repeats: a masked reduction of the last partial repeat addresses all of it
        self.pipe.InitBuffer(self.inQueue, 1, (self.inputUbSize * sizeof(self.T) + REPEAT_BYTES - 1) // REPEAT_BYTES * REPEAT_BYTES)
        self.pipe.InitBuffer(self.calcBuf, self.totalTmpBufByte)
        self.inputLocal = self.inQueue.AllocTensor[self.T]()
        calc = self.calcBuf.Get[uint8_t]()
        self.calcLocal = calc.ReinterpretCast[float]()
        offset = 0
        self.castTmpBuf = calc[offset].ReinterpretCast[float]()
        offset += self.castTmpBufByte
        self.probOutBuf = calc[offset].ReinterpretCast[self.T]()
        offset += self.probOutBufByte
        self.weight4SmoothingBuf = calc[offset].ReinterpretCast[float]()
        offset += self.weight4SmoothingBufSize * sizeof(float)
        self.reduceCalc = calc[offset].ReinterpretCast[float]()
        offset += REDUCE_SLOT_FLOATS * sizeof(float)
        self.reduceRes = calc[offset].ReinterpretCast[float]()
        offset += REDUCE_SLOT_FLOATS * sizeof(float)
        self.lnLocal = calc[offset].ReinterpretCast[float]()
        offset += self.lnTmpBufSize * sizeof(float)
        self.weightLocal = calc[offset].ReinterpretCast[float]()
        offset += self.lnTmpBufSize * sizeof(float)
        self.smoothingLossLocal = calc[offset].ReinterpretCast[float]()
        offset += self.lnTmpBufSize * sizeof(float)
        self.workLocal = calc[offset].ReinterpretCast[float]()

    def Process(self):
        for r in range(self.batchNum):
            rowOffset = r * self.targetNum
            rowMax = self.GetRowMax(rowOffset)
            target = self.targetGm.GetValue(self.startRow + r)
            ignored = target == self.ignoreIndex
            valid = ignored or (target >= 0 and target < self.targetNum)
            weightValue = float(1.0)
            if ignored:
                weightValue = float(0.0)
            elif not valid:
                weightValue = QUIET_NAN
            elif self.defaultWeight == 0:
                weightValue = self.weightGm.GetValue(target)
            self.weightLocal.SetValue(r, weightValue)
            expSum = self.GetExpSum(rowOffset, rowMax)
            self.reduceCalc.SetValue(0, expSum)
            Log(self.reduceRes, self.reduceCalc, 1)
            lse = self.reduceRes.GetValue(0) + rowMax
            self.GetLogProbOut(r, rowOffset, target, ignored, valid, lse)
        Mul(self.lnLocal, self.lnLocal, self.weightLocal, self.batchNum)
        if self.reduction == REDUCTION_NONE:
            self.GetNoneLoss()
        elif self.reduction == REDUCTION_SUM:
            self.GetSumLoss()
        else:
            self.GetMeanLoss()
        self.inQueue.FreeTensor(self.inputLocal)

    def ChunkBuf(self):
        if self.T is float:
            return self.inputLocal
        return self.castTmpBuf

    def CopyIn(self, dst, offset, length):
        if self.T is float:
            eventId = self.pipe.FetchEventID(HardEvent.V_MTE2)
            SetFlag[HardEvent.V_MTE2](eventId)
            WaitFlag[HardEvent.V_MTE2](eventId)
        if length % DATA_COPY_ALIGN == 0:
            DataCopy(self.inputLocal, self.inputGm[offset], length)
        else:
            copyParams = DataCopyExtParams(1, length * sizeof(self.T), 0, 0, 0)
            padParams = DataCopyPadExtParams[self.T](False, 0, 0, 0)
            DataCopyPad(self.inputLocal, self.inputGm[offset], copyParams, padParams)
        eventId = self.pipe.FetchEventID(HardEvent.MTE2_V)
        SetFlag[HardEvent.MTE2_V](eventId)
        WaitFlag[HardEvent.MTE2_V](eventId)
        if self.T is float:
            return
        Cast(dst, self.inputLocal, RoundMode.CAST_NONE, length)
        eventId = self.pipe.FetchEventID(HardEvent.V_MTE2)
        SetFlag[HardEvent.V_MTE2](eventId)
        WaitFlag[HardEvent.V_MTE2](eventId)
        PipeBarrier[PIPE_V]()

    def CopyOut(self, src, offset, length):
        eventId = self.pipe.FetchEventID(HardEvent.MTE3_V)
        SetFlag[HardEvent.MTE3_V](eventId)
        WaitFlag[HardEvent.MTE3_V](eventId)
        Cast(self.probOutBuf, src, RoundMode.CAST_RINT, length)
        eventId = self.pipe.FetchEventID(HardEvent.V_MTE3)
        SetFlag[HardEvent.V_MTE3](eventId)
        WaitFlag[HardEvent.V_MTE3](eventId)
        self.StoreOut(self.logProbGm[offset], self.probOutBuf, length)

    def CopyOutNoCast(self, offset, length):
        eventId = self.pipe.FetchEventID(HardEvent.V_MTE3)
        SetFlag[HardEvent.V_MTE3](eventId)
        WaitFlag[HardEvent.V_MTE3](eventId)
        self.StoreOut(self.logProbGm[offset], self.inputLocal, length)
        eventId = self.pipe.FetchEventID(HardEvent.MTE3_V)
        SetFlag[HardEvent.MTE3_V](eventId)
        WaitFlag[HardEvent.MTE3_V](eventId)

    def StoreOut(self, dst, src, length):
        if length % DATA_COPY_ALIGN == 0:
            DataCopy(dst, src, length)
        else:
            copyParams = DataCopyExtParams(1, length * sizeof(self.T), 0, 0, 0)
            DataCopyPad(dst, src, copyParams)

    def GetRowMax(self, rowOffset):
        buf = self.ChunkBuf()
        Duplicate(self.reduceRes, MIN_FLT, REDUCE_SLOT_FLOATS)
        PipeBarrier[PIPE_V]()
        for k in range(self.ubLoopNum):
            self.CopyIn(buf, rowOffset + k * self.inputUbSize, self.inputUbSize)
            self.ChunkMax(buf, self.vecLoopNum, self.vecTailNum)
        if self.ubTailNum > 0:
            self.CopyIn(buf, rowOffset + self.ubLoopNum * self.inputUbSize, self.ubTailNum)
            self.ChunkMax(buf, self.tailVecLoopNum, self.tailVecTailNum)
        return self.reduceRes.GetValue(0)

    def ChunkMax(self, buf, loopNum, tailNum):
        for j in range(loopNum):
            self.GetReduceMax(buf[j * VEC_MAX_LEN], self.workLocal, self.reduceRes, self.reduceCalc, VEC_MAX_LEN)
        if tailNum > 0:
            self.GetReduceMax(buf[loopNum * VEC_MAX_LEN], self.workLocal, self.reduceRes, self.reduceCalc, tailNum)

    def GetReduceMax(self, src, work, res, calc, length):
        if length == VEC_MAX_LEN:
            BlockReduceMax(work, src, FULL_FIRST_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            BlockReduceMax(work, work, FULL_SECOND_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            BlockReduceMax(work, work, FULL_THIRD_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            WholeReduceMax(calc, work, FULL_LAST_MASK, 1, 1, 1, 8, ReduceOrder.ORDER_ONLY_VALUE)
            PipeBarrier[PIPE_V]()
        elif length <= HALF_VEC_LEN:
            self.ReduceMaxSmall(src, work, calc, length)
        else:
            BlockReduceMax(work, src, HALF_FIRST_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            BlockReduceMax(work, work, HALF_SECOND_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            WholeReduceMax(calc, work, REPEAT_FLOATS, 1, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            Max(res, res, calc, 1)
            PipeBarrier[PIPE_V]()
            self.ReduceMaxSmall(src[HALF_VEC_LEN], work, calc, length - HALF_VEC_LEN)
        Max(res, res, calc, 1)
        PipeBarrier[PIPE_V]()

    def ReduceMaxSmall(self, src, work, calc, length):
        repeatNum = length // REPEAT_FLOATS
        tailNum = length % REPEAT_FLOATS
        if repeatNum > 0:
            WholeReduceMax(work, src, REPEAT_FLOATS, repeatNum, 1, 1, 8, ReduceOrder.ORDER_ONLY_VALUE)
        if tailNum > 0:
            WholeReduceMax(work[repeatNum], src[repeatNum * REPEAT_FLOATS], tailNum, 1, 1, 1, 8, ReduceOrder.ORDER_ONLY_VALUE)
        PipeBarrier[PIPE_V]()
        partialNum = repeatNum + (1 if tailNum > 0 else 0)
        WholeReduceMax(calc, work, partialNum, 1, 1, 1, 8, ReduceOrder.ORDER_ONLY_VALUE)
        PipeBarrier[PIPE_V]()

    def GetReduceSum(self, src, work, dst, length):
        if length == VEC_MAX_LEN:
            BlockReduceSum(work, src, FULL_FIRST_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            BlockReduceSum(work, work, FULL_SECOND_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            BlockReduceSum(work, work, FULL_THIRD_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            WholeReduceSum(dst, work, FULL_LAST_MASK, 1, 1, 1, 8)
            PipeBarrier[PIPE_V]()
        elif length <= HALF_VEC_LEN:
            self.ReduceSumSmall(src, work, dst, length)
        else:
            BlockReduceSum(work, src, HALF_FIRST_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            BlockReduceSum(work, work, HALF_SECOND_REPEATS, REPEAT_FLOATS, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            WholeReduceSum(dst, work, REPEAT_FLOATS, 1, 1, 1, 8)
            PipeBarrier[PIPE_V]()
            self.ReduceSumSmall(src[HALF_VEC_LEN], work, dst[1], length - HALF_VEC_LEN)

    def ReduceSumSmall(self, src, work, dst, length):
        repeatNum = length // REPEAT_FLOATS
        tailNum = length % REPEAT_FLOATS
        if repeatNum > 0:
            WholeReduceSum(work, src, REPEAT_FLOATS, repeatNum, 1, 1, 8)
        if tailNum > 0:
            WholeReduceSum(work[repeatNum], src[length - tailNum], tailNum, 1, 1, 1, 8)
        PipeBarrier[PIPE_V]()
        partialNum = repeatNum + (1 if tailNum > 0 else 0)
        WholeReduceSum(dst, work, partialNum, 1, 1, 1, 8)
        PipeBarrier[PIPE_V]()

    def ReduceToScalar(self, src, dst, length):
        self.GetReduceSum(src, self.workLocal, dst, length)
        eventId = self.pipe.FetchEventID(HardEvent.V_S)
        SetFlag[HardEvent.V_S](eventId)
        WaitFlag[HardEvent.V_S](eventId)
        if length > HALF_VEC_LEN and length < VEC_MAX_LEN:
            return dst.GetValue(0) + dst.GetValue(1)
        return dst.GetValue(0)

    def GetExpSum(self, rowOffset, rowMax):
        buf = self.ChunkBuf()
        expSum = float(0.0)
        for k in range(self.ubLoopNum + 1):
            length = self.inputUbSize
            loopNum = self.vecLoopNum
            tailNum = self.vecTailNum
            if k == self.ubLoopNum:
                length = self.ubTailNum
                loopNum = self.tailVecLoopNum
                tailNum = self.tailVecTailNum
            if length == 0:
                continue
            self.CopyIn(buf, rowOffset + k * self.inputUbSize, length)
            Adds(buf, buf, -rowMax, length)
            PipeBarrier[PIPE_V]()
            Exp(buf, buf, length)
            PipeBarrier[PIPE_V]()
            for j in range(loopNum):
                expSum = expSum + self.ReduceToScalar(buf[j * VEC_MAX_LEN], self.reduceCalc, VEC_MAX_LEN)
            if tailNum > 0:
                expSum = expSum + self.ReduceToScalar(buf[loopNum * VEC_MAX_LEN], self.reduceCalc, tailNum)
        return expSum

    def GetLogProbOut(self, r, rowOffset, target, ignored, valid, lse):
        buf = self.ChunkBuf()
        batchLogProb = float(0.0)
        if not valid:
            batchLogProb = QUIET_NAN
        smoothSum = float(0.0)
        flatTarget = target + rowOffset
        for k in range(self.ubLoopNum + 1):
            length = self.inputUbSize
            loopNum = self.vecLoopNum
            tailNum = self.vecTailNum
            if k == self.ubLoopNum:
                length = self.ubTailNum
                loopNum = self.tailVecLoopNum
                tailNum = self.tailVecTailNum
            if length == 0:
                continue
            offset = rowOffset + k * self.inputUbSize
            if self.T is float:
                eventId = self.pipe.FetchEventID(HardEvent.MTE3_MTE2)
                SetFlag[HardEvent.MTE3_MTE2](eventId)
                WaitFlag[HardEvent.MTE3_MTE2](eventId)
            self.CopyIn(buf, offset, length)
            Adds(buf, buf, -lse, length)
            PipeBarrier[PIPE_V]()
            if not ignored and valid and flatTarget >= offset and flatTarget < offset + length:
                batchLogProb = buf.GetValue(flatTarget - offset)
            if self.T is float:
                self.CopyOutNoCast(offset, length)
            else:
                self.CopyOut(buf, offset, length)
            if self.isSmoothing and not ignored:
                if self.defaultWeight == 0:
                    # the last reader of weight4SmoothingBuf (V) is ordered before MTE2 by CopyIn
                    self.CopyWeightIn(k * self.inputUbSize, length)
                    eventId = self.pipe.FetchEventID(HardEvent.MTE2_V)
                    SetFlag[HardEvent.MTE2_V](eventId)
                    WaitFlag[HardEvent.MTE2_V](eventId)
                    Mul(buf, buf, self.weight4SmoothingBuf, length)
                    PipeBarrier[PIPE_V]()
                for j in range(loopNum):
                    smoothSum = smoothSum + self.ReduceToScalar(buf[j * VEC_MAX_LEN], self.reduceCalc, VEC_MAX_LEN)
                if tailNum > 0:
                    smoothSum = smoothSum + self.ReduceToScalar(buf[loopNum * VEC_MAX_LEN], self.reduceCalc, tailNum)
        self.smoothingLossLocal.SetValue(r, -smoothSum)
        self.lnLocal.SetValue(r, batchLogProb)

    def CopyWeightIn(self, offset, length):
        if length % DATA_COPY_ALIGN == 0:
            DataCopy(self.weight4SmoothingBuf, self.weightGm[offset], length)
        else:
            copyParams = DataCopyExtParams(1, length * sizeof(float), 0, 0, 0)
            padParams = DataCopyPadExtParams[float](False, 0, 0, 0)
            DataCopyPad(self.weight4SmoothingBuf, self.weightGm[offset], copyParams, padParams)

    def GetNoneLoss(self):
        if self.isSmoothing:
            Muls(self.smoothingLossLocal, self.smoothingLossLocal, self.labelSmoothing / float(self.targetNum), self.batchNum)
            Muls(self.lnLocal, self.lnLocal, self.labelSmoothing - float(1.0), self.batchNum)
            PipeBarrier[PIPE_V]()
            Add(self.lnLocal, self.lnLocal, self.smoothingLossLocal, self.batchNum)
        else:
            Muls(self.lnLocal, self.lnLocal, float(-1.0), self.batchNum)
        PipeBarrier[PIPE_V]()
        if self.T is float:
            eventId = self.pipe.FetchEventID(HardEvent.V_MTE3)
            SetFlag[HardEvent.V_MTE3](eventId)
            WaitFlag[HardEvent.V_MTE3](eventId)
            self.StoreOut(self.lossGm, self.lnLocal, self.batchNum)
        else:
            self.CopyOutLoss()

    def CopyOutLoss(self):
        eventId = self.pipe.FetchEventID(HardEvent.MTE3_V)
        SetFlag[HardEvent.MTE3_V](eventId)
        WaitFlag[HardEvent.MTE3_V](eventId)
        Cast(self.probOutBuf, self.lnLocal, RoundMode.CAST_RINT, self.batchNum)
        eventId = self.pipe.FetchEventID(HardEvent.V_MTE3)
        SetFlag[HardEvent.V_MTE3](eventId)
        WaitFlag[HardEvent.V_MTE3](eventId)
        self.StoreOut(self.lossGm, self.probOutBuf, self.batchNum)

    def CopyToWs(self, src, value, slot):
        src.SetValue(0, value)
        copyParams = DataCopyExtParams(1, sizeof(float), 0, 0, 0)
        DataCopyPad(self.wsGm[slot + self.blockIdx], src, copyParams)
        eventId = self.pipe.FetchEventID(HardEvent.MTE3_V)
        SetFlag[HardEvent.MTE3_V](eventId)
        WaitFlag[HardEvent.MTE3_V](eventId)

    def GetSumLoss(self):
        lnSum = self.ReduceToScalar(self.lnLocal, self.reduceRes, self.batchNum)
        self.CopyToWs(self.reduceRes, lnSum, WS_LN_SLOT)
        if self.isSmoothing:
            smoothSum = self.ReduceToScalar(self.smoothingLossLocal, self.reduceCalc, self.batchNum)
            self.CopyToWs(self.reduceCalc, smoothSum, WS_SMOOTH_SLOT)
        SyncAll()
        if self.blockIdx == 0:
            self.CalcFinalLoss()

    def GetMeanLoss(self):
        lnSum = self.ReduceToScalar(self.lnLocal, self.reduceRes, self.batchNum)
        self.CopyToWs(self.reduceRes, lnSum, WS_LN_SLOT)
        weightSum = self.ReduceToScalar(self.weightLocal, self.reduceCalc, self.batchNum)
        self.CopyToWs(self.reduceCalc, weightSum, WS_WEIGHT_SLOT)
        if self.isSmoothing:
            smoothSum = self.ReduceToScalar(self.smoothingLossLocal, self.reduceCalc, self.batchNum)
            self.CopyToWs(self.reduceCalc, smoothSum, WS_SMOOTH_SLOT)
        SyncAll()
        if self.blockIdx == 0:
            self.CalcFinalLoss()

    def CopyInWs(self, slot):
        copyParams = DataCopyExtParams(1, self.usedCoreNum * sizeof(float), 0, 0, 0)
        padParams = DataCopyPadExtParams[float](False, 0, 0, 0)
        DataCopyPad(self.calcLocal[slot], self.wsGm[slot], copyParams, padParams)

    def CalcFinalLoss(self):
        # SyncAll began with PipeBarrier<PIPE_ALL>: the UB is free for the copies
        self.CopyInWs(WS_LN_SLOT)
        if self.reduction == REDUCTION_MEAN:
            self.CopyInWs(WS_WEIGHT_SLOT)
        if self.isSmoothing:
            self.CopyInWs(WS_SMOOTH_SLOT)
        eventId = self.pipe.FetchEventID(HardEvent.MTE2_V)
        SetFlag[HardEvent.MTE2_V](eventId)
        WaitFlag[HardEvent.MTE2_V](eventId)
        WholeReduceSum(self.calcLocal[WS_LN_SLOT], self.calcLocal[WS_LN_SLOT], self.usedCoreNum, 1, 1, 1, 8)
        if self.reduction == REDUCTION_MEAN:
            WholeReduceSum(self.calcLocal[WS_WEIGHT_SLOT], self.calcLocal[WS_WEIGHT_SLOT], self.usedCoreNum, 1, 1, 1, 8)
        if self.isSmoothing:
            WholeReduceSum(self.calcLocal[WS_SMOOTH_SLOT], self.calcLocal[WS_SMOOTH_SLOT], self.usedCoreNum, 1, 1, 1, 8)
        eventId = self.pipe.FetchEventID(HardEvent.V_S)
        SetFlag[HardEvent.V_S](eventId)
        WaitFlag[HardEvent.V_S](eventId)
        lnSum = self.calcLocal.GetValue(WS_LN_SLOT)
        lossValue = -lnSum
        if self.isSmoothing:
            smoothSum = self.calcLocal.GetValue(WS_SMOOTH_SLOT)
            lossValue = (self.labelSmoothing - float(1.0)) * lnSum + smoothSum * (self.labelSmoothing / float(self.targetNum))
        if self.reduction == REDUCTION_MEAN:
            lossValue = lossValue / self.calcLocal.GetValue(WS_WEIGHT_SLOT)
        self.StoreFinalLoss(lossValue)

    def StoreFinalLoss(self, lossValue):
        self.calcLocal.SetValue(0, lossValue)
        if self.T is float:
            copyParams = DataCopyExtParams(1, sizeof(float), 0, 0, 0)
            DataCopyPad(self.lossGm, self.calcLocal, copyParams)
        else:
            finalLocal = self.calcBuf.Get[uint8_t]()[FINAL_CAST_OFFSET].ReinterpretCast[self.T]()
            Cast(finalLocal, self.calcLocal, RoundMode.CAST_RINT, 1)
            eventId = self.pipe.FetchEventID(HardEvent.V_MTE3)
            SetFlag[HardEvent.V_MTE3](eventId)
            WaitFlag[HardEvent.V_MTE3](eventId)
            copyParams = DataCopyExtParams(1, sizeof(self.T), 0, 0, 0)
            DataCopyPad(self.lossGm, finalLocal, copyParams)
