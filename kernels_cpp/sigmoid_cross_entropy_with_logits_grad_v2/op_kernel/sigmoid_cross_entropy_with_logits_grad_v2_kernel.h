/**
 * SigmoidCrossEntropyWithLogitsGradV2 kernel: the gradient of BCE-with-logits w.r.t. the logits,
 *   p = 1 / (1 + exp(-x)),  g = p - y  or, with pos_weight, g = (pw*y + 1 - y) * p - pw*y,
 *   out = ((g * dout) * weight) * globalScale.
 * HAS_WEIGHT / HAS_POS_WEIGHT are compile-time flags: four variants per dtype.
 *
 * Work split (from the tiling): the first tailBlockNum cores are "big" and take bigCoreDataNum
 * elements, the others smallCoreDataNum; each core cuts its run into tiles of tileDataNum
 * elements, the last one holding the tail. The counts are whole 32-byte blocks, so the last
 * core's run is cut back to end exactly at totalDataNum: its last tile may then not be a whole
 * block and goes through DataCopyPad with its exact byte count (DataCopy would drop the partial
 * block), so no core reads or writes past the end of any GM tensor.
 *
 * Per tile: CopyIn (TQue VECIN: predict, target, dout, [weight], [posWeight]) -> Compute ->
 * CopyOut (TQue VECOUT gradient). The queues carry the MTE2/V/MTE3 syncs; ordering within V is
 * left to the compiler's auto-sync (no explicit PipeBarrier), as in the public kernel.
 *
 * UB layout, from 0 in InitBuffer order (tb = tileDataNum * sizeof(T), bufferNum buffers each):
 * predict, target, dout, [weight], [posWeight], gradient, then the fp32 calc area: 5 slots of
 * tileDataNum floats for half/bfloat16_t (inputs are widened there), 3 for float in lite mode
 * (float works in the input buffers themselves, which it overwrites).
 *
 * Differences from the public kernel: the exact last-core end (above); vector instructions run
 * over the tile's element count (the public fp32 path rounds it up to 16 and computes a few
 * garbage elements); no early return that would leave a tile's queues unbalanced; BUFFER_NUM
 * comes from the tiling.
 */
#ifndef SIGMOID_CROSS_ENTROPY_WITH_LOGITS_GRAD_V2_KERNEL_H
#define SIGMOID_CROSS_ENTROPY_WITH_LOGITS_GRAD_V2_KERNEL_H

#include <type_traits>

#include "kernel_operator.h"
#include "sigmoid_cross_entropy_with_logits_grad_v2_tiling_data.h"

namespace SigmoidCrossEntropyWithLogitsGradV2Kernel {
using namespace AscendC;

constexpr int32_t QUE_DEPTH = 1;
constexpr uint32_t FP32_BUF_NUM = 5;
constexpr uint32_t FP32_LITE_BUF_NUM = 3;
constexpr uint64_t BLOCK_BYTES = 32;
constexpr uint64_t FP32_DATACOPY_TILE_LIMIT = 1024;
constexpr float ONE = 1.0f;
constexpr float MINUS_ONE = -1.0f;

template <typename T, bool HAS_WEIGHT, bool HAS_POS_WEIGHT>
class KernelSigmoidCrossEntropyWithLogitsGradV2 {
public:
    __aicore__ inline KernelSigmoidCrossEntropyWithLogitsGradV2() {}

    __aicore__ inline void Init(GM_ADDR predict, GM_ADDR target, GM_ADDR dout, GM_ADDR weight, GM_ADDR posWeight,
        GM_ADDR gradient, const SigmoidCrossEntropyWithLogitsGradV2TilingData &tiling)
    {
        uint64_t blockIdx = GetBlockIdx();
        tileDataNum_ = tiling.tileDataNum;
        globalScale_ = tiling.globalScale;
        globalOffset_ = tiling.bigCoreDataNum * blockIdx;
        if (blockIdx < tiling.tailBlockNum) {
            coreDataNum_ = tiling.bigCoreDataNum;
            tileNum_ = tiling.finalBigTileNum;
            tailDataNum_ = tiling.bigTailDataNum;
        } else {
            coreDataNum_ = tiling.smallCoreDataNum;
            tileNum_ = tiling.finalSmallTileNum;
            tailDataNum_ = tiling.smallTailDataNum;
            globalOffset_ -= (tiling.bigCoreDataNum - tiling.smallCoreDataNum) * (blockIdx - tiling.tailBlockNum);
        }
        // The block split pads N up to whole 32-byte blocks: cut the last core back to N.
        if (globalOffset_ + coreDataNum_ > tiling.totalDataNum) {
            uint64_t overshoot = globalOffset_ + coreDataNum_ - tiling.totalDataNum;
            coreDataNum_ -= overshoot;
            tailDataNum_ -= overshoot;
        }
        predictGm_.SetGlobalBuffer((__gm__ T *)predict, tiling.totalDataNum);
        targetGm_.SetGlobalBuffer((__gm__ T *)target, tiling.totalDataNum);
        doutGm_.SetGlobalBuffer((__gm__ T *)dout, tiling.totalDataNum);
        if constexpr (HAS_WEIGHT) {
            weightGm_.SetGlobalBuffer((__gm__ T *)weight, tiling.totalDataNum);
        }
        if constexpr (HAS_POS_WEIGHT) {
            posWeightGm_.SetGlobalBuffer((__gm__ T *)posWeight, tiling.totalDataNum);
        }
        gradientGm_.SetGlobalBuffer((__gm__ T *)gradient, tiling.totalDataNum);

        uint32_t tileBytes = tileDataNum_ * sizeof(T);
        pipe_.InitBuffer(predictQue_, tiling.bufferNum, tileBytes);
        pipe_.InitBuffer(targetQue_, tiling.bufferNum, tileBytes);
        pipe_.InitBuffer(doutQue_, tiling.bufferNum, tileBytes);
        if constexpr (HAS_WEIGHT) {
            pipe_.InitBuffer(weightQue_, tiling.bufferNum, tileBytes);
        }
        if constexpr (HAS_POS_WEIGHT) {
            pipe_.InitBuffer(posWeightQue_, tiling.bufferNum, tileBytes);
        }
        pipe_.InitBuffer(gradientQue_, tiling.bufferNum, tileBytes);
        uint32_t calcSlots = FP32_BUF_NUM;
        if (std::is_same_v<T, float> && tiling.fp32_lite_mode == 1) {
            calcSlots = FP32_LITE_BUF_NUM;
        }
        pipe_.InitBuffer(calcBuf_, calcSlots * tileDataNum_ * sizeof(float));
    }

    __aicore__ inline void Process()
    {
        for (uint64_t i = 0; i < tileNum_; i++) {
            uint64_t processDataNum = (i == tileNum_ - 1) ? tailDataNum_ : tileDataNum_;
            CopyIn(i, processDataNum);
            Compute(processDataNum);
            CopyOut(i, processDataNum);
        }
    }

private:
    __aicore__ inline bool UseDataCopy(uint64_t processDataNum)
    {
        // DataCopy moves whole 32-byte blocks only; a partial last block needs DataCopyPad.
        if (processDataNum * sizeof(T) % BLOCK_BYTES != 0) {
            return false;
        }
        if (processDataNum == tileDataNum_) {
            return true;
        }
        return std::is_same_v<T, float> && tileDataNum_ < FP32_DATACOPY_TILE_LIMIT;
    }

    __aicore__ inline void CopyTileIn(LocalTensor<T> &dst, GlobalTensor<T> src, uint64_t processDataNum)
    {
        if (UseDataCopy(processDataNum)) {
            DataCopy(dst, src, processDataNum);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(processDataNum * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(dst, src, copyParams, padParams);
        }
    }

    __aicore__ inline void CopyIn(uint64_t progress, uint64_t processDataNum)
    {
        uint64_t offset = globalOffset_ + progress * tileDataNum_;
        LocalTensor<T> predictLocal = predictQue_.template AllocTensor<T>();
        CopyTileIn(predictLocal, predictGm_[offset], processDataNum);
        predictQue_.EnQue(predictLocal);
        LocalTensor<T> targetLocal = targetQue_.template AllocTensor<T>();
        CopyTileIn(targetLocal, targetGm_[offset], processDataNum);
        targetQue_.EnQue(targetLocal);
        LocalTensor<T> doutLocal = doutQue_.template AllocTensor<T>();
        CopyTileIn(doutLocal, doutGm_[offset], processDataNum);
        doutQue_.EnQue(doutLocal);
        if constexpr (HAS_WEIGHT) {
            LocalTensor<T> weightLocal = weightQue_.template AllocTensor<T>();
            CopyTileIn(weightLocal, weightGm_[offset], processDataNum);
            weightQue_.EnQue(weightLocal);
        }
        if constexpr (HAS_POS_WEIGHT) {
            LocalTensor<T> posWeightLocal = posWeightQue_.template AllocTensor<T>();
            CopyTileIn(posWeightLocal, posWeightGm_[offset], processDataNum);
            posWeightQue_.EnQue(posWeightLocal);
        }
    }

    __aicore__ inline void Compute(uint64_t processDataNum)
    {
        if constexpr (std::is_same_v<T, float>) {
            ComputeLite(processDataNum);
        } else {
            ComputeWiden(processDataNum);
        }
    }

    // half / bfloat16_t: widen into the fp32 calc slots S0..S4, compute, narrow into the output.
    __aicore__ inline void ComputeWiden(uint32_t calCount)
    {
        LocalTensor<T> predictLocal = predictQue_.template DeQue<T>();
        LocalTensor<T> targetLocal = targetQue_.template DeQue<T>();
        LocalTensor<T> doutLocal = doutQue_.template DeQue<T>();
        LocalTensor<T> weightLocal;
        LocalTensor<T> posWeightLocal;
        if constexpr (HAS_WEIGHT) {
            weightLocal = weightQue_.template DeQue<T>();
        }
        if constexpr (HAS_POS_WEIGHT) {
            posWeightLocal = posWeightQue_.template DeQue<T>();
        }
        LocalTensor<float> calc = calcBuf_.Get<float>();
        LocalTensor<float> s0 = calc;
        LocalTensor<float> s1 = calc[tileDataNum_];
        LocalTensor<float> s2 = calc[2 * tileDataNum_];
        LocalTensor<float> s3 = calc[3 * tileDataNum_];
        LocalTensor<float> s4 = calc[4 * tileDataNum_];
        Cast(s0, predictLocal, RoundMode::CAST_NONE, calCount);
        Cast(s1, targetLocal, RoundMode::CAST_NONE, calCount);
        if constexpr (HAS_POS_WEIGHT) {
            Cast(s3, posWeightLocal, RoundMode::CAST_NONE, calCount);
            Mul(s2, s3, s1, calCount);
            Adds(s4, s2, ONE, calCount);
            Sub(s4, s4, s1, calCount);
            Muls(s3, s0, MINUS_ONE, calCount);
            Exp(s3, s3, calCount);
            Adds(s1, s3, ONE, calCount);
            Duplicate(s3, ONE, calCount);
            Div(s0, s3, s1, calCount);
            Mul(s4, s4, s0, calCount);
            Sub(s0, s4, s2, calCount);
        } else {
            Muls(s2, s0, MINUS_ONE, calCount);
            Exp(s2, s2, calCount);
            Adds(s4, s2, ONE, calCount);
            Duplicate(s3, ONE, calCount);
            Div(s0, s3, s4, calCount);
            Sub(s0, s0, s1, calCount);
        }
        Cast(s1, doutLocal, RoundMode::CAST_NONE, calCount);
        Mul(s0, s0, s1, calCount);
        if constexpr (HAS_WEIGHT) {
            Cast(s2, weightLocal, RoundMode::CAST_NONE, calCount);
            Mul(s0, s0, s2, calCount);
        }
        if (globalScale_ != ONE) {
            Muls(s0, s0, globalScale_, calCount);
        }
        LocalTensor<T> gradientLocal = gradientQue_.template AllocTensor<T>();
        if constexpr (std::is_same_v<T, bfloat16_t>) {
            Cast(gradientLocal, s0, RoundMode::CAST_RINT, calCount);
        } else {
            Cast(gradientLocal, s0, RoundMode::CAST_NONE, calCount);
        }
        gradientQue_.EnQue(gradientLocal);
        if constexpr (HAS_WEIGHT) {
            weightQue_.FreeTensor(weightLocal);
        }
        if constexpr (HAS_POS_WEIGHT) {
            posWeightQue_.FreeTensor(posWeightLocal);
        }
        predictQue_.FreeTensor(predictLocal);
        targetQue_.FreeTensor(targetLocal);
        doutQue_.FreeTensor(doutLocal);
    }

    // float ("lite"): compute in the input buffers and 3 calc slots, then copy UB->UB to the output.
    __aicore__ inline void ComputeLite(uint32_t calCount)
    {
        LocalTensor<float> xLocal = predictQue_.template DeQue<float>();
        LocalTensor<float> yLocal = targetQue_.template DeQue<float>();
        LocalTensor<float> doutLocal = doutQue_.template DeQue<float>();
        LocalTensor<float> weightLocal;
        LocalTensor<float> posWeightLocal;
        if constexpr (HAS_WEIGHT) {
            weightLocal = weightQue_.template DeQue<float>();
        }
        if constexpr (HAS_POS_WEIGHT) {
            posWeightLocal = posWeightQue_.template DeQue<float>();
        }
        LocalTensor<float> calc = calcBuf_.Get<float>();
        LocalTensor<float> tmp1 = calc;
        LocalTensor<float> tmp2 = calc[tileDataNum_];
        LocalTensor<float> tmp3 = calc[2 * tileDataNum_];
        if constexpr (HAS_POS_WEIGHT) {
            Mul(tmp1, posWeightLocal, yLocal, calCount);
            Adds(tmp3, tmp1, ONE, calCount);
            Sub(tmp3, tmp3, yLocal, calCount);
            Muls(tmp2, xLocal, MINUS_ONE, calCount);
            Exp(tmp2, tmp2, calCount);
            Adds(yLocal, tmp2, ONE, calCount);
            Duplicate(tmp2, ONE, calCount);
            Div(xLocal, tmp2, yLocal, calCount);
            Mul(tmp3, tmp3, xLocal, calCount);
            Sub(xLocal, tmp3, tmp1, calCount);
        } else {
            Muls(tmp1, xLocal, MINUS_ONE, calCount);
            Exp(tmp1, tmp1, calCount);
            Adds(tmp3, tmp1, ONE, calCount);
            Duplicate(tmp2, ONE, calCount);
            Div(xLocal, tmp2, tmp3, calCount);
            Sub(xLocal, xLocal, yLocal, calCount);
        }
        Mul(xLocal, xLocal, doutLocal, calCount);
        if constexpr (HAS_WEIGHT) {
            Mul(xLocal, xLocal, weightLocal, calCount);
        }
        if (globalScale_ != ONE) {
            Muls(xLocal, xLocal, globalScale_, calCount);
        }
        LocalTensor<float> gradientLocal = gradientQue_.template AllocTensor<float>();
        // A UB->UB DataCopy moves whole 32-byte blocks: round the count up to one (CopyOut
        // stores only calCount elements).
        uint32_t copyCount = (calCount * sizeof(float) + BLOCK_BYTES - 1) / BLOCK_BYTES * BLOCK_BYTES / sizeof(float);
        DataCopy(gradientLocal, xLocal, copyCount);
        gradientQue_.EnQue(gradientLocal);
        if constexpr (HAS_WEIGHT) {
            weightQue_.FreeTensor(weightLocal);
        }
        if constexpr (HAS_POS_WEIGHT) {
            posWeightQue_.FreeTensor(posWeightLocal);
        }
        predictQue_.FreeTensor(xLocal);
        targetQue_.FreeTensor(yLocal);
        doutQue_.FreeTensor(doutLocal);
    }

    __aicore__ inline void CopyOut(uint64_t progress, uint64_t processDataNum)
    {
        uint64_t offset = globalOffset_ + progress * tileDataNum_;
        LocalTensor<T> gradientLocal = gradientQue_.template DeQue<T>();
        if (UseDataCopy(processDataNum)) {
            DataCopy(gradientGm_[offset], gradientLocal, processDataNum);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(processDataNum * sizeof(T)), 0, 0, 0};
            DataCopyPad(gradientGm_[offset], gradientLocal, copyParams);
        }
        gradientQue_.FreeTensor(gradientLocal);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, QUE_DEPTH> predictQue_;
    TQue<QuePosition::VECIN, QUE_DEPTH> targetQue_;
    TQue<QuePosition::VECIN, QUE_DEPTH> doutQue_;
    TQue<QuePosition::VECIN, QUE_DEPTH> weightQue_;
    TQue<QuePosition::VECIN, QUE_DEPTH> posWeightQue_;
    TQue<QuePosition::VECOUT, QUE_DEPTH> gradientQue_;
    TBuf<TPosition::VECCALC> calcBuf_;
    GlobalTensor<T> predictGm_;
    GlobalTensor<T> targetGm_;
    GlobalTensor<T> doutGm_;
    GlobalTensor<T> weightGm_;
    GlobalTensor<T> posWeightGm_;
    GlobalTensor<T> gradientGm_;
    uint64_t globalOffset_ = 0;
    uint64_t coreDataNum_ = 0;
    uint64_t tileNum_ = 0;
    uint64_t tileDataNum_ = 0;
    uint64_t tailDataNum_ = 0;
    float globalScale_ = 1.0f;
};
}  // namespace SigmoidCrossEntropyWithLogitsGradV2Kernel

#endif  // SIGMOID_CROSS_ENTROPY_WITH_LOGITS_GRAD_V2_KERNEL_H
