/**
 * LogitGrad kernel: dx = dy / (x * (1 - x)) where x lies in [lo, hi], else a fill value.
 *
 * Work split: the input is cut into tiles of TILE_ELEMENTS; core b takes a run of whole tiles,
 * the first (tiles mod cores) cores one more, and the partial tile (if any) ends the run of the
 * last core that has an extra tile (or of the last core). Tiles alternate between two UB tile
 * sets (ping, pong) with EVENT_ID0 / EVENT_ID1, so that the store of one tile overlaps the load
 * and the vector work of the next.
 *
 * UB layout (bytes): ping = [0, 65536), pong = [65536, 131072), each an X region (x in fp32,
 * then the result) and a D region (dy in fp32, or the fp16/bf16 staging of both inputs); then
 * one fp32 scratch region [131072, 163840) shared by both sets, since only the vector pipe
 * touches it and the vector pipe runs tiles in order. Everything stays below the library temp
 * area at 188416 (Select writes there), and no cast's source partially overlaps its destination.
 */
#ifndef LOGIT_GRAD_KERNEL_H
#define LOGIT_GRAD_KERNEL_H

#include <type_traits>

#include "kernel_operator.h"
#include "logit_grad_tiling_data.h"

namespace LogitGradKernel {
using namespace AscendC;

constexpr int64_t TILE_ELEMENTS = 8192;
constexpr uint32_t FP32_TILE_BYTES = TILE_ELEMENTS * sizeof(float);
constexpr uint32_t SET_BYTES = 2 * FP32_TILE_BYTES;
constexpr uint32_t D_OFFSET = FP32_TILE_BYTES;
constexpr uint32_t SCRATCH_OFFSET = 2 * SET_BYTES;
constexpr uint32_t UB_USED_BYTES = SCRATCH_OFFSET + FP32_TILE_BYTES;
constexpr uint32_t MASK_TWO_OFFSET = FP32_TILE_BYTES / 2;
constexpr uint32_t COMPARE_ALIGN = 64;
constexpr uint32_t MASK_BITS_PER_WORD = 16;
constexpr float QUIET_NAN = __builtin_nanf("");

template <typename T>
class KernelLogitGrad {
public:
    __aicore__ inline KernelLogitGrad() {}

    __aicore__ inline void Init(GM_ADDR x, GM_ADDR dy, GM_ADDR dx, const LogitGradTilingData &tiling)
    {
        elementNum_ = tiling.elementNum;
        coreNum_ = static_cast<int64_t>(tiling.needCoreNum);
        if (tiling.eps >= 0.0f) {
            lo_ = tiling.eps;
            fill_ = 0.0f;
        } else {
            lo_ = 0.0f;
            fill_ = QUIET_NAN;
        }
        hi_ = 1.0f - lo_;
        xGm_.SetGlobalBuffer((__gm__ T *)x, elementNum_);
        dyGm_.SetGlobalBuffer((__gm__ T *)dy, elementNum_);
        dxGm_.SetGlobalBuffer((__gm__ T *)dx, elementNum_);
        pipe_.InitBuffer(ubBuf_, UB_USED_BYTES);
    }

    __aicore__ inline void Process()
    {
        int64_t blockIdx = GetBlockIdx();
        if (blockIdx >= coreNum_) {
            return;
        }
        int64_t tileCount = (elementNum_ + TILE_ELEMENTS - 1) / TILE_ELEMENTS;
        int64_t remainder = elementNum_ % TILE_ELEMENTS;
        int64_t tilesPerCore = tileCount / coreNum_;
        int64_t extraTiles = tileCount % coreNum_;
        int64_t myTiles = blockIdx < extraTiles ? tilesPerCore + 1 : tilesPerCore;
        int64_t start = myTiles * blockIdx * TILE_ELEMENTS;
        if (extraTiles > 0 && blockIdx >= extraTiles) {
            start += elementNum_ % (TILE_ELEMENTS * coreNum_);
        }
        int64_t lastCore = extraTiles == 0 ? coreNum_ - 1 : extraTiles - 1;
        ub_ = ubBuf_.Get<uint8_t>();

        SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
        SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
        for (int64_t i = 0; i < myTiles; i++) {
            event_t eventId = (i % 2 == 0) ? EVENT_ID0 : EVENT_ID1;
            uint32_t setBase = (i % 2 == 0) ? 0 : SET_BYTES;
            uint32_t calNum = TILE_ELEMENTS;
            if (remainder > 0 && blockIdx == lastCore && i == myTiles - 1) {
                calNum = remainder;
            }
            int64_t offset = start + i * TILE_ELEMENTS;
            CopyIn(offset, calNum, setBase, eventId);
            Compute(calNum, setBase);
            CopyOut(offset, calNum, setBase, eventId);
        }
        WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
        WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID1);
    }

private:
    __aicore__ inline void CopyIn(int64_t offset, uint32_t calNum, uint32_t setBase, event_t eventId)
    {
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(calNum * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> padParams{false, 0, 0, 0};
        WaitFlag<HardEvent::MTE3_MTE2>(eventId);
        if constexpr (std::is_same_v<T, float>) {
            DataCopyPad(ub_[setBase].ReinterpretCast<T>(), xGm_[offset], copyParams, padParams);
            DataCopyPad(ub_[setBase + D_OFFSET].ReinterpretCast<T>(), dyGm_[offset], copyParams, padParams);
        } else {
            // fp16/bf16 inputs are staged in the D region: dy in its lower half, x in its upper half.
            LocalTensor<T> staging = ub_[setBase + D_OFFSET].ReinterpretCast<T>();
            DataCopyPad(staging[TILE_ELEMENTS], xGm_[offset], copyParams, padParams);
            DataCopyPad(staging, dyGm_[offset], copyParams, padParams);
        }
        SetFlag<HardEvent::MTE2_V>(eventId);
        WaitFlag<HardEvent::MTE2_V>(eventId);
    }

    __aicore__ inline void Compute(uint32_t calNum, uint32_t setBase)
    {
        LocalTensor<float> xFp32 = ub_[setBase].ReinterpretCast<float>();
        LocalTensor<float> dyFp32;
        LocalTensor<float> tmp;
        if constexpr (std::is_same_v<T, float>) {
            dyFp32 = ub_[setBase + D_OFFSET].ReinterpretCast<float>();
            tmp = ub_[SCRATCH_OFFSET].ReinterpretCast<float>();
        } else {
            // Widen into the X region and the scratch; the D region then becomes the scratch.
            LocalTensor<T> staging = ub_[setBase + D_OFFSET].ReinterpretCast<T>();
            dyFp32 = ub_[SCRATCH_OFFSET].ReinterpretCast<float>();
            tmp = ub_[setBase + D_OFFSET].ReinterpretCast<float>();
            Cast(xFp32, staging[TILE_ELEMENTS], RoundMode::CAST_NONE, calNum);
            PipeBarrier<PIPE_V>();
            Cast(dyFp32, staging, RoundMode::CAST_NONE, calNum);
            PipeBarrier<PIPE_V>();
        }
        // q = dy / (x * (1 - x)), in the reference's operation order.
        Muls(tmp, xFp32, -1.0f, calNum);
        PipeBarrier<PIPE_V>();
        Adds(tmp, tmp, 1.0f, calNum);
        PipeBarrier<PIPE_V>();
        Mul(tmp, xFp32, tmp, calNum);
        PipeBarrier<PIPE_V>();
        Div(dyFp32, dyFp32, tmp, calNum);
        PipeBarrier<PIPE_V>();
        // valid = (x >= lo) && (x <= hi); compares run over whole 256-byte repeats.
        uint32_t alignedNum = (calNum + COMPARE_ALIGN - 1) / COMPARE_ALIGN * COMPARE_ALIGN;
        LocalTensor<uint8_t> maskOne = tmp.ReinterpretCast<uint8_t>();
        LocalTensor<uint8_t> maskTwo = maskOne[MASK_TWO_OFFSET];
        CompareScalar(maskOne, xFp32, lo_, CMPMODE::GE, alignedNum);
        PipeBarrier<PIPE_V>();
        CompareScalar(maskTwo, xFp32, hi_, CMPMODE::LE, alignedNum);
        PipeBarrier<PIPE_V>();
        LocalTensor<uint16_t> wordsOne = maskOne.ReinterpretCast<uint16_t>();
        LocalTensor<uint16_t> wordsTwo = maskTwo.ReinterpretCast<uint16_t>();
        And(wordsOne, wordsOne, wordsTwo, alignedNum / MASK_BITS_PER_WORD);
        PipeBarrier<PIPE_V>();
        Select(xFp32, maskOne, dyFp32, fill_, SELMODE::VSEL_TENSOR_SCALAR_MODE, calNum);
        PipeBarrier<PIPE_V>();
        if constexpr (std::is_same_v<T, half>) {
            Cast(ub_[setBase + D_OFFSET].ReinterpretCast<T>(), xFp32, RoundMode::CAST_NONE, calNum);
            PipeBarrier<PIPE_V>();
        } else if constexpr (std::is_same_v<T, bfloat16_t>) {
            Cast(ub_[setBase + D_OFFSET].ReinterpretCast<T>(), xFp32, RoundMode::CAST_RINT, calNum);
            PipeBarrier<PIPE_V>();
        }
    }

    __aicore__ inline void CopyOut(int64_t offset, uint32_t calNum, uint32_t setBase, event_t eventId)
    {
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(calNum * sizeof(T)), 0, 0, 0};
        SetFlag<HardEvent::V_MTE3>(eventId);
        WaitFlag<HardEvent::V_MTE3>(eventId);
        if constexpr (std::is_same_v<T, float>) {
            DataCopyPad(dxGm_[offset], ub_[setBase].ReinterpretCast<T>(), copyParams);
        } else {
            DataCopyPad(dxGm_[offset], ub_[setBase + D_OFFSET].ReinterpretCast<T>(), copyParams);
        }
        SetFlag<HardEvent::MTE3_MTE2>(eventId);
    }

    TPipe pipe_;
    TBuf<TPosition::VECCALC> ubBuf_;
    LocalTensor<uint8_t> ub_;
    GlobalTensor<T> xGm_;
    GlobalTensor<T> dyGm_;
    GlobalTensor<T> dxGm_;
    int64_t elementNum_ = 0;
    int64_t coreNum_ = 1;
    float lo_ = 0.0f;
    float hi_ = 1.0f;
    float fill_ = 0.0f;
};
}  // namespace LogitGradKernel

#endif  // LOGIT_GRAD_KERNEL_H
