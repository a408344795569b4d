/**
 * CrossEntropyLoss kernel (A2): per row of input (N, C), log_prob = x - lse with
 * lse = ln(sum exp(x - max)) + max, the target's log-prob g = log_prob[t] (0 for ignore_index),
 * w = weight[t] (1 without weight, 0 for ignore_index), and with label smoothing ls the row's
 * smoothing sum sigma = sum_c log_prob[c] * weight[c]; loss_r = -w g, or
 * (ls - 1) w g - (ls / C) sigma. reduction none stores loss_r; sum and mean reduce per core,
 * put the partials into the workspace, SyncAll, and core 0 combines them (mean divides by the
 * sum of w).
 *
 * Work split (tiling): the first frontCoreNum cores take frontBatchNum rows, the others
 * tailBatchNum. A row is read in chunks of inputUbSize elements (ubLoopNum full ones, then
 * ubTailNum), three times: for the max, for the exp-sum, and for the log-probs; each chunk is
 * reduced in 8192-element sub-blocks by GetReduceMax / GetReduceSum (the 8192, <= 4096 and
 * 4096 < len < 8192 recipes) whose sums go into a scalar accumulator in order.
 *
 * UB: inQueue (one inputUbSize buffer of T, allocated once and freed at the end, never
 * queued: every cross-pipe step is an immediate SetFlag / WaitFlag pair on a FetchEventID
 * id), then calcBuf carved as castTmpBuf
 * (fp32 copy of a chunk, half / bf16 only), probOutBuf (narrowed log-prob chunk and the none loss
 * vector), weight4SmoothingBuf, reduceCalc (8 floats), reduceRes (8), lnLocal, weightLocal,
 * smoothingLossLocal (F floats each, rounded up to 8) and workLocal (1024 floats).
 *
 * Where ours differs from the public kernel (its latent bugs, which live in tests/bugs only):
 * - a target that is neither ignore_index nor in [0, C) gives NaN for that row (g = w = NaN;
 *   nothing is read at t), where the public kernel reads weight[t] and UB out of bounds and keeps
 *   the previous row's g; g is reset for every row;
 * - probOutBuf holds the none loss vector too (tiling's probOutBufByte);
 * - every per-core reduction uses workLocal as its scratch (the public mean reduces lnLocal over
 *   the input buffer and the smoothing sum over itself);
 * - each 4-byte workspace store is followed by an MTE3 -> V wait before its UB source is written
 *   again (the public fp32 mean with smoothing and no weight overwrites the weight sum while
 *   it is being stored), and the smoothing sum has its own slot (reduceCalc), not the
 *   zero-length fp32 castTmpBuf;
 * - core 0 copies in exactly the workspace slots the cores wrote (the public copies all 192
 *   floats) and stores the final loss with DataCopyPad (the public writes it with a scalar GM
 *   store that relies on the end-of-kernel dcache flush);
 * - the tiling refuses more than 8192 rows per core or more than 64 cores;
 * - the input buffer (and the tiling's castTmpBufByte) is whole 256-byte repeats: the masked
 *   reductions of a chunk's last partial repeat address the whole repeat.
 */
#ifndef CROSS_ENTROPY_LOSS_KERNEL_H
#define CROSS_ENTROPY_LOSS_KERNEL_H

#include <type_traits>

#include "kernel_operator.h"
#include "cross_entropy_loss_tiling_data.h"

namespace CrossEntropyLossKernel {
using namespace AscendC;

constexpr float MIN_FLT = -3.4028235e38f;
constexpr float QUIET_NAN = __builtin_nanf("");
constexpr uint32_t VEC_MAX_LEN = 8192;
constexpr uint32_t HALF_VEC_LEN = 4096;
constexpr uint32_t REPEAT_FLOATS = 64;
constexpr uint32_t REPEAT_BYTES = 256;
constexpr uint32_t BLOCK_FLOATS = 8;
// the 8192 recipe: 128 BlockReduce repeats -> 1024 values, 16 -> 128, 2 -> 16, one masked repeat
constexpr uint32_t FULL_FIRST_REPEATS = 128;
constexpr uint32_t FULL_SECOND_REPEATS = 16;
constexpr uint32_t FULL_THIRD_REPEATS = 2;
constexpr uint32_t FULL_LAST_MASK = 16;
// the first 4096 of a 4096 < len < 8192 piece: 64 repeats -> 512 values, 8 -> 64, one repeat
constexpr uint32_t HALF_FIRST_REPEATS = 64;
constexpr uint32_t HALF_SECOND_REPEATS = 8;
constexpr uint32_t REDUCE_SLOT_FLOATS = 8;
constexpr uint32_t WORK_FLOATS = 1024;
constexpr uint32_t WS_LN_SLOT = 0;
constexpr uint32_t WS_WEIGHT_SLOT = 64;
constexpr uint32_t WS_SMOOTH_SLOT = 128;
constexpr uint32_t FINAL_CAST_OFFSET = 768;
constexpr uint32_t DATA_COPY_ALIGN = 32;
constexpr uint64_t REDUCTION_NONE = 0;
constexpr uint64_t REDUCTION_MEAN = 1;
constexpr uint64_t REDUCTION_SUM = 2;

template <typename T>
class KernelCrossEntropyLoss {
public:
    __aicore__ inline KernelCrossEntropyLoss() {}

    __aicore__ inline void Init(GM_ADDR input, GM_ADDR target, GM_ADDR weight, GM_ADDR loss, GM_ADDR logProb,
        GM_ADDR workspace, const CrossEntropyLossTilingData &tiling)
    {
        blockIdx = GetBlockIdx();
        usedCoreNum = GetBlockNum();
        targetNum = tiling.targetNum;
        inputUbSize = tiling.inputUbSize;
        castTmpBufByte = tiling.castTmpBufByte;
        probOutBufByte = tiling.probOutBufByte;
        lnTmpBufSize = tiling.lnTmpBufSize;
        weight4SmoothingBufSize = tiling.weight4SmoothingBufSize;
        totalTmpBufByte = tiling.totalTmpBufByte;
        ubLoopNum = tiling.ubLoopNum;
        ubTailNum = tiling.ubTailNum;
        vecLoopNum = tiling.vecLoopNum;
        vecTailNum = tiling.vecTailNum;
        tailVecLoopNum = tiling.tailVecLoopNum;
        tailVecTailNum = tiling.tailVecTailNum;
        reduction = tiling.reduction;
        ignoreIndex = tiling.ignoreIndex;
        labelSmoothing = tiling.labelSmoothing;
        defaultWeight = tiling.defaultWeight;
        isSmoothing = labelSmoothing > 0.0f;
        if (tiling.tailCoreNum == 0 || blockIdx < tiling.frontCoreNum) {
            batchNum = tiling.frontBatchNum;
            startRow = blockIdx * tiling.frontBatchNum;
        } else {
            batchNum = tiling.tailBatchNum;
            startRow = tiling.frontCoreNum * tiling.frontBatchNum + (blockIdx - tiling.frontCoreNum) * tiling.tailBatchNum;
        }
        inputGm.SetGlobalBuffer((__gm__ T *)input);
        inputGm = inputGm[startRow * targetNum];
        logProbGm.SetGlobalBuffer((__gm__ T *)logProb);
        logProbGm = logProbGm[startRow * targetNum];
        lossGm.SetGlobalBuffer((__gm__ T *)loss);
        if (reduction == REDUCTION_NONE) {
            lossGm = lossGm[startRow];
        }
        targetGm.SetGlobalBuffer((__gm__ int64_t *)target);
        if (defaultWeight == 0) {
            weightGm.SetGlobalBuffer((__gm__ float *)weight);
        }
        if (reduction != REDUCTION_NONE) {
            wsGm.SetGlobalBuffer((__gm__ float *)GetUserWorkspace(workspace));
        }
        InitUB();
    }

    __aicore__ inline void InitUB()
    {
        // whole 256-byte repeats: a masked reduction of the last partial repeat addresses all of it
        pipe.InitBuffer(inQueue, 1, (inputUbSize * sizeof(T) + REPEAT_BYTES - 1) / REPEAT_BYTES * REPEAT_BYTES);
        pipe.InitBuffer(calcBuf, totalTmpBufByte);
        inputLocal = inQueue.AllocTensor<T>();
        LocalTensor<uint8_t> calc = calcBuf.Get<uint8_t>();
        calcLocal = calc.ReinterpretCast<float>();
        uint64_t offset = 0;
        castTmpBuf = calc[offset].ReinterpretCast<float>();
        offset += castTmpBufByte;
        probOutBuf = calc[offset].ReinterpretCast<T>();
        offset += probOutBufByte;
        weight4SmoothingBuf = calc[offset].ReinterpretCast<float>();
        offset += weight4SmoothingBufSize * sizeof(float);
        reduceCalc = calc[offset].ReinterpretCast<float>();
        offset += REDUCE_SLOT_FLOATS * sizeof(float);
        reduceRes = calc[offset].ReinterpretCast<float>();
        offset += REDUCE_SLOT_FLOATS * sizeof(float);
        lnLocal = calc[offset].ReinterpretCast<float>();
        offset += lnTmpBufSize * sizeof(float);
        weightLocal = calc[offset].ReinterpretCast<float>();
        offset += lnTmpBufSize * sizeof(float);
        smoothingLossLocal = calc[offset].ReinterpretCast<float>();
        offset += lnTmpBufSize * sizeof(float);
        workLocal = calc[offset].ReinterpretCast<float>();
    }

    __aicore__ inline void Process()
    {
        for (uint64_t r = 0; r < batchNum; r++) {
            uint64_t rowOffset = r * targetNum;
            float rowMax = GetRowMax(rowOffset);
            int64_t target = targetGm.GetValue(startRow + r);
            bool ignored = target == ignoreIndex;
            bool valid = ignored || (target >= 0 && target < static_cast<int64_t>(targetNum));
            float weightValue = 1.0f;
            if (ignored) {
                weightValue = 0.0f;
            } else if (!valid) {
                weightValue = QUIET_NAN;
            } else if (defaultWeight == 0) {
                weightValue = weightGm.GetValue(target);
            }
            weightLocal.SetValue(r, weightValue);
            float expSum = GetExpSum(rowOffset, rowMax);
            reduceCalc.SetValue(0, expSum);
            Log(reduceRes, reduceCalc, 1);
            float lse = reduceRes.GetValue(0) + rowMax;
            GetLogProbOut(r, rowOffset, target, ignored, valid, lse);
        }
        Mul(lnLocal, lnLocal, weightLocal, batchNum);
        if (reduction == REDUCTION_NONE) {
            GetNoneLoss();
        } else if (reduction == REDUCTION_SUM) {
            GetSumLoss();
        } else {
            GetMeanLoss();
        }
        inQueue.FreeTensor(inputLocal);
    }

private:
    __aicore__ inline LocalTensor<float> ChunkBuf()
    {
        if constexpr (std::is_same_v<T, float>) {
            return inputLocal;
        }
        return castTmpBuf;
    }

    __aicore__ inline void CopyIn(const LocalTensor<float> &dst, uint64_t offset, uint64_t length)
    {
        if constexpr (std::is_same_v<T, float>) {
            event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE2));
            SetFlag<HardEvent::V_MTE2>(eventId);
            WaitFlag<HardEvent::V_MTE2>(eventId);
        }
        if (length % DATA_COPY_ALIGN == 0) {
            DataCopy(inputLocal, inputGm[offset], length);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(inputLocal, inputGm[offset], copyParams, padParams);
        }
        event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(eventId);
        WaitFlag<HardEvent::MTE2_V>(eventId);
        if constexpr (std::is_same_v<T, float>) {
            return;
        }
        Cast(dst, inputLocal, RoundMode::CAST_NONE, length);
        eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE2));
        SetFlag<HardEvent::V_MTE2>(eventId);
        WaitFlag<HardEvent::V_MTE2>(eventId);
        PipeBarrier<PIPE_V>();
    }

    __aicore__ inline void CopyOut(const LocalTensor<float> &src, uint64_t offset, uint64_t length)
    {
        event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_V));
        SetFlag<HardEvent::MTE3_V>(eventId);
        WaitFlag<HardEvent::MTE3_V>(eventId);
        Cast(probOutBuf, src, RoundMode::CAST_RINT, length);
        eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(eventId);
        WaitFlag<HardEvent::V_MTE3>(eventId);
        StoreOut(logProbGm[offset], probOutBuf, length);
    }

    __aicore__ inline void CopyOutNoCast(uint64_t offset, uint64_t length)
    {
        event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(eventId);
        WaitFlag<HardEvent::V_MTE3>(eventId);
        StoreOut(logProbGm[offset], inputLocal, length);
        eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_V));
        SetFlag<HardEvent::MTE3_V>(eventId);
        WaitFlag<HardEvent::MTE3_V>(eventId);
    }

    __aicore__ inline void StoreOut(const GlobalTensor<T> &dst, const LocalTensor<T> &src, uint64_t length)
    {
        if (length % DATA_COPY_ALIGN == 0) {
            DataCopy(dst, src, length);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
            DataCopyPad(dst, src, copyParams);
        }
    }

    __aicore__ inline float GetRowMax(uint64_t rowOffset)
    {
        LocalTensor<float> buf = ChunkBuf();
        Duplicate(reduceRes, MIN_FLT, REDUCE_SLOT_FLOATS);
        PipeBarrier<PIPE_V>();
        for (uint64_t k = 0; k < ubLoopNum; k++) {
            CopyIn(buf, rowOffset + k * inputUbSize, inputUbSize);
            ChunkMax(buf, vecLoopNum, vecTailNum);
        }
        if (ubTailNum > 0) {
            CopyIn(buf, rowOffset + ubLoopNum * inputUbSize, ubTailNum);
            ChunkMax(buf, tailVecLoopNum, tailVecTailNum);
        }
        return reduceRes.GetValue(0);
    }

    __aicore__ inline void ChunkMax(const LocalTensor<float> &buf, uint64_t loopNum, uint64_t tailNum)
    {
        for (uint64_t j = 0; j < loopNum; j++) {
            GetReduceMax(buf[j * VEC_MAX_LEN], workLocal, reduceRes, reduceCalc, VEC_MAX_LEN);
        }
        if (tailNum > 0) {
            GetReduceMax(buf[loopNum * VEC_MAX_LEN], workLocal, reduceRes, reduceCalc, tailNum);
        }
    }

    __aicore__ inline void GetReduceMax(const LocalTensor<float> &src, const LocalTensor<float> &work,
        const LocalTensor<float> &res, const LocalTensor<float> &calc, uint64_t length)
    {
        if (length == VEC_MAX_LEN) {
            BlockReduceMax(work, src, FULL_FIRST_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            BlockReduceMax(work, work, FULL_SECOND_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            BlockReduceMax(work, work, FULL_THIRD_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            WholeReduceMax(calc, work, FULL_LAST_MASK, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
            PipeBarrier<PIPE_V>();
        } else if (length <= HALF_VEC_LEN) {
            ReduceMaxSmall(src, work, calc, length);
        } else {
            BlockReduceMax(work, src, HALF_FIRST_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            BlockReduceMax(work, work, HALF_SECOND_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            WholeReduceMax(calc, work, REPEAT_FLOATS, 1, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            Max(res, res, calc, 1);
            PipeBarrier<PIPE_V>();
            ReduceMaxSmall(src[HALF_VEC_LEN], work, calc, length - HALF_VEC_LEN);
        }
        Max(res, res, calc, 1);
        PipeBarrier<PIPE_V>();
    }

    __aicore__ inline void ReduceMaxSmall(const LocalTensor<float> &src, const LocalTensor<float> &work,
        const LocalTensor<float> &calc, uint64_t length)
    {
        uint64_t repeatNum = length / REPEAT_FLOATS;
        uint64_t tailNum = length % REPEAT_FLOATS;
        if (repeatNum > 0) {
            WholeReduceMax(work, src, REPEAT_FLOATS, repeatNum, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
        }
        if (tailNum > 0) {
            WholeReduceMax(work[repeatNum], src[repeatNum * REPEAT_FLOATS], tailNum, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
        }
        PipeBarrier<PIPE_V>();
        uint64_t partialNum = repeatNum + (tailNum > 0 ? 1 : 0);
        WholeReduceMax(calc, work, partialNum, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
        PipeBarrier<PIPE_V>();
    }

    __aicore__ inline void GetReduceSum(const LocalTensor<float> &src, const LocalTensor<float> &work,
        const LocalTensor<float> &dst, uint64_t length)
    {
        if (length == VEC_MAX_LEN) {
            BlockReduceSum(work, src, FULL_FIRST_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            BlockReduceSum(work, work, FULL_SECOND_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            BlockReduceSum(work, work, FULL_THIRD_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            WholeReduceSum(dst, work, FULL_LAST_MASK, 1, 1, 1, 8);
            PipeBarrier<PIPE_V>();
        } else if (length <= HALF_VEC_LEN) {
            ReduceSumSmall(src, work, dst, length);
        } else {
            BlockReduceSum(work, src, HALF_FIRST_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            BlockReduceSum(work, work, HALF_SECOND_REPEATS, REPEAT_FLOATS, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            WholeReduceSum(dst, work, REPEAT_FLOATS, 1, 1, 1, 8);
            PipeBarrier<PIPE_V>();
            ReduceSumSmall(src[HALF_VEC_LEN], work, dst[1], length - HALF_VEC_LEN);
        }
    }

    __aicore__ inline void ReduceSumSmall(const LocalTensor<float> &src, const LocalTensor<float> &work,
        const LocalTensor<float> &dst, uint64_t length)
    {
        uint64_t repeatNum = length / REPEAT_FLOATS;
        uint64_t tailNum = length % REPEAT_FLOATS;
        if (repeatNum > 0) {
            WholeReduceSum(work, src, REPEAT_FLOATS, repeatNum, 1, 1, 8);
        }
        if (tailNum > 0) {
            WholeReduceSum(work[repeatNum], src[length - tailNum], tailNum, 1, 1, 1, 8);
        }
        PipeBarrier<PIPE_V>();
        uint64_t partialNum = repeatNum + (tailNum > 0 ? 1 : 0);
        WholeReduceSum(dst, work, partialNum, 1, 1, 1, 8);
        PipeBarrier<PIPE_V>();
    }

    __aicore__ inline float ReduceToScalar(const LocalTensor<float> &src, const LocalTensor<float> &dst, uint64_t length)
    {
        GetReduceSum(src, workLocal, dst, length);
        event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventId);
        WaitFlag<HardEvent::V_S>(eventId);
        if (length > HALF_VEC_LEN && length < VEC_MAX_LEN) {
            return dst.GetValue(0) + dst.GetValue(1);
        }
        return dst.GetValue(0);
    }

    __aicore__ inline float GetExpSum(uint64_t rowOffset, float rowMax)
    {
        LocalTensor<float> buf = ChunkBuf();
        float expSum = 0.0f;
        for (uint64_t k = 0; k < ubLoopNum + 1; k++) {
            uint64_t length = inputUbSize;
            uint64_t loopNum = vecLoopNum;
            uint64_t tailNum = vecTailNum;
            if (k == ubLoopNum) {
                length = ubTailNum;
                loopNum = tailVecLoopNum;
                tailNum = tailVecTailNum;
            }
            if (length == 0) {
                continue;
            }
            CopyIn(buf, rowOffset + k * inputUbSize, length);
            Adds(buf, buf, -rowMax, length);
            PipeBarrier<PIPE_V>();
            Exp(buf, buf, length);
            PipeBarrier<PIPE_V>();
            for (uint64_t j = 0; j < loopNum; j++) {
                expSum = expSum + ReduceToScalar(buf[j * VEC_MAX_LEN], reduceCalc, VEC_MAX_LEN);
            }
            if (tailNum > 0) {
                expSum = expSum + ReduceToScalar(buf[loopNum * VEC_MAX_LEN], reduceCalc, tailNum);
            }
        }
        return expSum;
    }

    __aicore__ inline void GetLogProbOut(uint64_t r, uint64_t rowOffset, int64_t target, bool ignored, bool valid, float lse)
    {
        LocalTensor<float> buf = ChunkBuf();
        float batchLogProb = 0.0f;
        if (!valid) {
            batchLogProb = QUIET_NAN;
        }
        float smoothSum = 0.0f;
        int64_t flatTarget = target + static_cast<int64_t>(rowOffset);
        for (uint64_t k = 0; k < ubLoopNum + 1; k++) {
            uint64_t length = inputUbSize;
            uint64_t loopNum = vecLoopNum;
            uint64_t tailNum = vecTailNum;
            if (k == ubLoopNum) {
                length = ubTailNum;
                loopNum = tailVecLoopNum;
                tailNum = tailVecTailNum;
            }
            if (length == 0) {
                continue;
            }
            int64_t offset = static_cast<int64_t>(rowOffset + k * inputUbSize);
            if constexpr (std::is_same_v<T, float>) {
                event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_MTE2));
                SetFlag<HardEvent::MTE3_MTE2>(eventId);
                WaitFlag<HardEvent::MTE3_MTE2>(eventId);
            }
            CopyIn(buf, offset, length);
            Adds(buf, buf, -lse, length);
            PipeBarrier<PIPE_V>();
            if (!ignored && valid && flatTarget >= offset && flatTarget < offset + static_cast<int64_t>(length)) {
                batchLogProb = buf.GetValue(flatTarget - offset);
            }
            if constexpr (std::is_same_v<T, float>) {
                CopyOutNoCast(offset, length);
            } else {
                CopyOut(buf, offset, length);
            }
            if (isSmoothing && !ignored) {
                if (defaultWeight == 0) {
                    // the last reader of weight4SmoothingBuf (V) is ordered before MTE2 by CopyIn
                    CopyWeightIn(k * inputUbSize, length);
                    event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
                    SetFlag<HardEvent::MTE2_V>(eventId);
                    WaitFlag<HardEvent::MTE2_V>(eventId);
                    Mul(buf, buf, weight4SmoothingBuf, length);
                    PipeBarrier<PIPE_V>();
                }
                for (uint64_t j = 0; j < loopNum; j++) {
                    smoothSum = smoothSum + ReduceToScalar(buf[j * VEC_MAX_LEN], reduceCalc, VEC_MAX_LEN);
                }
                if (tailNum > 0) {
                    smoothSum = smoothSum + ReduceToScalar(buf[loopNum * VEC_MAX_LEN], reduceCalc, tailNum);
                }
            }
        }
        smoothingLossLocal.SetValue(r, -smoothSum);
        lnLocal.SetValue(r, batchLogProb);
    }

    __aicore__ inline void CopyWeightIn(uint64_t offset, uint64_t length)
    {
        if (length % DATA_COPY_ALIGN == 0) {
            DataCopy(weight4SmoothingBuf, weightGm[offset], length);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(length * sizeof(float)), 0, 0, 0};
            DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
            DataCopyPad(weight4SmoothingBuf, weightGm[offset], copyParams, padParams);
        }
    }

    __aicore__ inline void GetNoneLoss()
    {
        if (isSmoothing) {
            Muls(smoothingLossLocal, smoothingLossLocal, labelSmoothing / static_cast<float>(targetNum), batchNum);
            Muls(lnLocal, lnLocal, labelSmoothing - 1.0f, batchNum);
            PipeBarrier<PIPE_V>();
            Add(lnLocal, lnLocal, smoothingLossLocal, batchNum);
        } else {
            Muls(lnLocal, lnLocal, -1.0f, batchNum);
        }
        PipeBarrier<PIPE_V>();
        if constexpr (std::is_same_v<T, float>) {
            event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
            SetFlag<HardEvent::V_MTE3>(eventId);
            WaitFlag<HardEvent::V_MTE3>(eventId);
            StoreOut(lossGm, lnLocal, batchNum);
        } else {
            CopyOutLoss();
        }
    }

    __aicore__ inline void CopyOutLoss()
    {
        event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_V));
        SetFlag<HardEvent::MTE3_V>(eventId);
        WaitFlag<HardEvent::MTE3_V>(eventId);
        Cast(probOutBuf, lnLocal, RoundMode::CAST_RINT, batchNum);
        eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
        SetFlag<HardEvent::V_MTE3>(eventId);
        WaitFlag<HardEvent::V_MTE3>(eventId);
        StoreOut(lossGm, probOutBuf, batchNum);
    }

    __aicore__ inline void CopyToWs(const LocalTensor<float> &src, float value, uint32_t slot)
    {
        src.SetValue(0, value);
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(sizeof(float)), 0, 0, 0};
        DataCopyPad(wsGm[slot + blockIdx], src, copyParams);
        event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE3_V));
        SetFlag<HardEvent::MTE3_V>(eventId);
        WaitFlag<HardEvent::MTE3_V>(eventId);
    }

    __aicore__ inline void GetSumLoss()
    {
        float lnSum = ReduceToScalar(lnLocal, reduceRes, batchNum);
        CopyToWs(reduceRes, lnSum, WS_LN_SLOT);
        if (isSmoothing) {
            float smoothSum = ReduceToScalar(smoothingLossLocal, reduceCalc, batchNum);
            CopyToWs(reduceCalc, smoothSum, WS_SMOOTH_SLOT);
        }
        SyncAll();
        if (blockIdx == 0) {
            CalcFinalLoss();
        }
    }

    __aicore__ inline void GetMeanLoss()
    {
        float lnSum = ReduceToScalar(lnLocal, reduceRes, batchNum);
        CopyToWs(reduceRes, lnSum, WS_LN_SLOT);
        float weightSum = ReduceToScalar(weightLocal, reduceCalc, batchNum);
        CopyToWs(reduceCalc, weightSum, WS_WEIGHT_SLOT);
        if (isSmoothing) {
            float smoothSum = ReduceToScalar(smoothingLossLocal, reduceCalc, batchNum);
            CopyToWs(reduceCalc, smoothSum, WS_SMOOTH_SLOT);
        }
        SyncAll();
        if (blockIdx == 0) {
            CalcFinalLoss();
        }
    }

    __aicore__ inline void CopyInWs(uint32_t slot)
    {
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(usedCoreNum * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> padParams{false, 0, 0, 0};
        DataCopyPad(calcLocal[slot], wsGm[slot], copyParams, padParams);
    }

    __aicore__ inline void CalcFinalLoss()
    {
        // SyncAll began with PipeBarrier<PIPE_ALL>: the UB is free for the copies
        CopyInWs(WS_LN_SLOT);
        if (reduction == REDUCTION_MEAN) {
            CopyInWs(WS_WEIGHT_SLOT);
        }
        if (isSmoothing) {
            CopyInWs(WS_SMOOTH_SLOT);
        }
        event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::MTE2_V));
        SetFlag<HardEvent::MTE2_V>(eventId);
        WaitFlag<HardEvent::MTE2_V>(eventId);
        WholeReduceSum(calcLocal[WS_LN_SLOT], calcLocal[WS_LN_SLOT], usedCoreNum, 1, 1, 1, 8);
        if (reduction == REDUCTION_MEAN) {
            WholeReduceSum(calcLocal[WS_WEIGHT_SLOT], calcLocal[WS_WEIGHT_SLOT], usedCoreNum, 1, 1, 1, 8);
        }
        if (isSmoothing) {
            WholeReduceSum(calcLocal[WS_SMOOTH_SLOT], calcLocal[WS_SMOOTH_SLOT], usedCoreNum, 1, 1, 1, 8);
        }
        eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventId);
        WaitFlag<HardEvent::V_S>(eventId);
        float lnSum = calcLocal.GetValue(WS_LN_SLOT);
        float lossValue = -lnSum;
        if (isSmoothing) {
            float smoothSum = calcLocal.GetValue(WS_SMOOTH_SLOT);
            lossValue = (labelSmoothing - 1.0f) * lnSum + smoothSum * (labelSmoothing / static_cast<float>(targetNum));
        }
        if (reduction == REDUCTION_MEAN) {
            lossValue = lossValue / calcLocal.GetValue(WS_WEIGHT_SLOT);
        }
        StoreFinalLoss(lossValue);
    }

    __aicore__ inline void StoreFinalLoss(float lossValue)
    {
        calcLocal.SetValue(0, lossValue);
        if constexpr (std::is_same_v<T, float>) {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(sizeof(float)), 0, 0, 0};
            DataCopyPad(lossGm, calcLocal, copyParams);
        } else {
            LocalTensor<T> finalLocal = calcBuf.Get<uint8_t>()[FINAL_CAST_OFFSET].ReinterpretCast<T>();
            Cast(finalLocal, calcLocal, RoundMode::CAST_RINT, 1);
            event_t eventId = static_cast<event_t>(pipe.FetchEventID(HardEvent::V_MTE3));
            SetFlag<HardEvent::V_MTE3>(eventId);
            WaitFlag<HardEvent::V_MTE3>(eventId);
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(sizeof(T)), 0, 0, 0};
            DataCopyPad(lossGm, finalLocal, copyParams);
        }
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQueue;
    TBuf<TPosition::VECCALC> calcBuf;
    GlobalTensor<T> inputGm;
    GlobalTensor<int64_t> targetGm;
    GlobalTensor<float> weightGm;
    GlobalTensor<T> lossGm;
    GlobalTensor<T> logProbGm;
    GlobalTensor<float> wsGm;
    LocalTensor<T> inputLocal;
    LocalTensor<float> castTmpBuf;
    LocalTensor<T> probOutBuf;
    LocalTensor<float> weight4SmoothingBuf;
    LocalTensor<float> reduceCalc;
    LocalTensor<float> reduceRes;
    LocalTensor<float> lnLocal;
    LocalTensor<float> weightLocal;
    LocalTensor<float> smoothingLossLocal;
    LocalTensor<float> workLocal;
    LocalTensor<float> calcLocal;
    uint64_t blockIdx = 0;
    uint64_t usedCoreNum = 0;
    uint64_t batchNum = 0;
    uint64_t startRow = 0;
    uint64_t targetNum = 0;
    uint64_t inputUbSize = 0;
    uint64_t castTmpBufByte = 0;
    uint64_t probOutBufByte = 0;
    uint64_t lnTmpBufSize = 0;
    uint64_t weight4SmoothingBufSize = 0;
    uint64_t totalTmpBufByte = 0;
    uint64_t ubLoopNum = 0;
    uint64_t ubTailNum = 0;
    uint64_t vecLoopNum = 0;
    uint64_t vecTailNum = 0;
    uint64_t tailVecLoopNum = 0;
    uint64_t tailVecTailNum = 0;
    uint64_t reduction = 0;
    int64_t ignoreIndex = 0;
    float labelSmoothing = 0.0f;
    uint32_t defaultWeight = 0;
    bool isSmoothing = false;
};
}  // namespace CrossEntropyLossKernel

#endif  // CROSS_ENTROPY_LOSS_KERNEL_H
