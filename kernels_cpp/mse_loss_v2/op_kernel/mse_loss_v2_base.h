/**
 * MSELossV2 kernel, common part: l = (x - y)^2 element-wise, in fp32.
 *
 * Work split (from the tiling): core b starts at element coreLength * b (a whole number of
 * 32-byte blocks, so every core starts aligned) and runs `epochs` full tiles of tileLength
 * elements, then a tail tile of tailTileLength elements if that is not 0. The last core
 * (b == coreNum - 1) takes epochsForLastCore / tailTileLengthForLastCore instead, plus the
 * tailElems elements after the last whole block, which join its tail tile.
 *
 * UB layout, from 0 in InitBuffer order: inQue0 (input) and inQue1 (target), bufferNum
 * buffers of tileLength * sizeof(T) each; for half / bfloat16_t two fp32 cast buffers of
 * tileLength floats; then the variant's queues (None: dstQue, bufferNum buffers of a tile;
 * Sum / Mean: uploadQue of 32 bytes, the 8-float accumulator, and downloadQue of 32 bytes per
 * core, for the cross-core combine).
 *
 * Per tile, CopyIn: for half / bfloat16_t each input is copied in, dequeued at once, widened
 * exactly into its cast buffer and freed; for float both are copied in and dequeued by the
 * variant's Compute. Syncs: TQue EnQue/DeQue only, V->V ordering left to the compiler's
 * auto-sync, as in the public kernel.
 *
 * Difference from the public kernel: a copy whose length is not a whole number of 32-byte
 * blocks (only the last core's tail, when tailElems > 0) goes through DataCopyPad with its
 * exact byte count, so no core reads or writes past element N of any GM tensor (the public
 * kernel moves one more whole block there).
 */
#ifndef MSE_LOSS_V2_BASE_H
#define MSE_LOSS_V2_BASE_H

#include <type_traits>

#include "kernel_operator.h"
#include "mse_loss_v2_tiling_data.h"

namespace MSELossV2Kernel {
using namespace AscendC;

constexpr int32_t QUE_DEPTH = 1;
constexpr uint64_t BLOCK_BYTES = 32;
constexpr uint64_t BLOCK_FLOATS = 8;

template <typename T>
class MSELossV2Base {
public:
    __aicore__ inline MSELossV2Base() {}

    __aicore__ inline void InitBase(GM_ADDR input, GM_ADDR target, const MSELossV2TilingData &tiling)
    {
        blockIdx_ = GetBlockIdx();
        coreNum_ = tiling.coreNum;
        bufferNum_ = tiling.bufferNum;
        tileLength_ = tiling.tileLength;
        epochs_ = tiling.epochs;
        tailTileLength_ = tiling.tailTileLength;
        tailElems_ = 0;
        gmOffset_ = tiling.coreLength * blockIdx_;
        if (blockIdx_ == coreNum_ - 1) {
            epochs_ = tiling.epochsForLastCore;
            tailTileLength_ = tiling.tailTileLengthForLastCore;
            tailElems_ = tiling.tailElems;
        }
        inputGm_.SetGlobalBuffer((__gm__ T *)input);
        targetGm_.SetGlobalBuffer((__gm__ T *)target);
        pipe_.InitBuffer(inQue0_, bufferNum_, tileLength_ * sizeof(T));
        pipe_.InitBuffer(inQue1_, bufferNum_, tileLength_ * sizeof(T));
        if constexpr (std::is_same_v<T, float>) {
            return;
        } else {
            pipe_.InitBuffer(castBuf0_, tileLength_ * sizeof(float));
            pipe_.InitBuffer(castBuf1_, tileLength_ * sizeof(float));
        }
    }

    // The tail tile's element count: the last core adds the elements after the last block.
    __aicore__ inline uint64_t TailCount()
    {
        return tailTileLength_ + tailElems_;
    }

    // GM -> UB: whole blocks by DataCopy; a partial last block by DataCopyPad, exact bytes.
    __aicore__ inline void CopyGmToUb(const LocalTensor<T> &dst, const GlobalTensor<T> &src, uint64_t n)
    {
        if (n * sizeof(T) % BLOCK_BYTES == 0) {
            DataCopy(dst, src, n);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
            DataCopyPad(dst, src, copyParams, padParams);
        }
    }

    // UB -> GM: whole blocks by DataCopy; a partial last block by DataCopyPad, exact bytes.
    __aicore__ inline void CopyUbToGm(const GlobalTensor<T> &dst, const LocalTensor<T> &src, uint64_t n)
    {
        if (n * sizeof(T) % BLOCK_BYTES == 0) {
            DataCopy(dst, src, n);
        } else {
            DataCopyExtParams copyParams{1, static_cast<uint32_t>(n * sizeof(T)), 0, 0, 0};
            DataCopyPad(dst, src, copyParams);
        }
    }

    __aicore__ inline void CopyIn(uint64_t offset, uint64_t n)
    {
        LocalTensor<T> in0 = inQue0_.template AllocTensor<T>();
        CopyGmToUb(in0, inputGm_[offset], n);
        inQue0_.EnQue(in0);
        if constexpr (std::is_same_v<T, float>) {
            LocalTensor<T> in1 = inQue1_.template AllocTensor<T>();
            CopyGmToUb(in1, targetGm_[offset], n);
            inQue1_.EnQue(in1);
        } else {
            // widen at once: the cast buffers are single, so double buffering gains little here
            LocalTensor<T> x = inQue0_.template DeQue<T>();
            Cast(castBuf0_.template Get<float>(), x, RoundMode::CAST_NONE, n);
            inQue0_.FreeTensor(x);
            LocalTensor<T> in1 = inQue1_.template AllocTensor<T>();
            CopyGmToUb(in1, targetGm_[offset], n);
            inQue1_.EnQue(in1);
            LocalTensor<T> y = inQue1_.template DeQue<T>();
            Cast(castBuf1_.template Get<float>(), y, RoundMode::CAST_NONE, n);
            inQue1_.FreeTensor(y);
        }
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, QUE_DEPTH> inQue0_;
    TQue<QuePosition::VECIN, QUE_DEPTH> inQue1_;
    TBuf<TPosition::VECCALC> castBuf0_;
    TBuf<TPosition::VECCALC> castBuf1_;
    TQue<QuePosition::VECOUT, QUE_DEPTH> dstQue_;
    TQue<QuePosition::VECOUT, QUE_DEPTH> uploadQue_;
    TQue<QuePosition::VECIN, QUE_DEPTH> downloadQue_;
    LocalTensor<float> outLocal_;
    GlobalTensor<T> inputGm_;
    GlobalTensor<T> targetGm_;
    GlobalTensor<T> outputGm_;
    GlobalTensor<float> workspaceGm_;
    uint64_t blockIdx_ = 0;
    uint64_t coreNum_ = 1;
    uint64_t bufferNum_ = 1;
    uint64_t tileLength_ = 0;
    uint64_t epochs_ = 0;
    uint64_t tailTileLength_ = 0;
    uint64_t tailElems_ = 0;
    uint64_t gmOffset_ = 0;
    float reduceScale_ = 1.0f;
};
}  // namespace MSELossV2Kernel

#endif  // MSE_LOSS_V2_BASE_H
