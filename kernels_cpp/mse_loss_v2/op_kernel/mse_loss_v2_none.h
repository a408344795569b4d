/**
 * MSELossV2, reduction none: out[i] = (x[i] - y[i])^2, in fp32, rounded to T with CAST_RINT
 * (round to nearest even) for half / bfloat16_t.
 *
 * Tiles as in the base; the output goes through dstQue (VECOUT) to GM. The last core's tail
 * tile holds tailTileLength + tailElems elements and writes exactly those (the public kernel
 * rounds the tail up to a whole block and writes up to 30 bytes past the end of out).
 */
#ifndef MSE_LOSS_V2_NONE_H
#define MSE_LOSS_V2_NONE_H

#include "mse_loss_v2_base.h"

namespace MSELossV2Kernel {
using namespace AscendC;

template <typename T>
class MSELossV2None : public MSELossV2Base<T> {
public:
    __aicore__ inline void Init(GM_ADDR input, GM_ADDR target, GM_ADDR output, const MSELossV2TilingData &tiling)
    {
        this->InitBase(input, target, tiling);
        this->outputGm_.SetGlobalBuffer((__gm__ T *)output);
        this->pipe_.InitBuffer(this->dstQue_, this->bufferNum_, this->tileLength_ * sizeof(T));
    }

    __aicore__ inline void Process()
    {
        for (uint64_t i = 0; i < this->epochs_; i++) {
            uint64_t offset = this->gmOffset_ + i * this->tileLength_;
            this->CopyIn(offset, this->tileLength_);
            Compute(this->tileLength_);
            CopyOut(offset, this->tileLength_);
        }
        uint64_t tailCount = this->TailCount();
        if (tailCount > 0) {
            uint64_t offset = this->gmOffset_ + this->epochs_ * this->tileLength_;
            this->CopyIn(offset, tailCount);
            Compute(tailCount);
            CopyOut(offset, tailCount);
        }
    }

    __aicore__ inline void Compute(uint64_t n)
    {
        if constexpr (std::is_same_v<T, float>) {
            LocalTensor<float> in0 = this->inQue0_.template DeQue<float>();
            LocalTensor<float> in1 = this->inQue1_.template DeQue<float>();
            Sub(in1, in0, in1, n);
            this->inQue0_.FreeTensor(in0);
            LocalTensor<float> dst = this->dstQue_.template AllocTensor<float>();
            Mul(dst, in1, in1, n);
            this->inQue1_.FreeTensor(in1);
            this->dstQue_.EnQue(dst);
        } else {
            LocalTensor<float> cast0 = this->castBuf0_.template Get<float>();
            LocalTensor<float> cast1 = this->castBuf1_.template Get<float>();
            Sub(cast0, cast0, cast1, n);
            Mul(cast1, cast0, cast0, n);
            LocalTensor<T> dst = this->dstQue_.template AllocTensor<T>();
            Cast(dst, cast1, RoundMode::CAST_RINT, n);
            this->dstQue_.EnQue(dst);
        }
    }

    __aicore__ inline void CopyOut(uint64_t offset, uint64_t n)
    {
        LocalTensor<T> dst = this->dstQue_.template DeQue<T>();
        this->CopyUbToGm(this->outputGm_[offset], dst, n);
        this->dstQue_.FreeTensor(dst);
    }
};
}  // namespace MSELossV2Kernel

#endif  // MSE_LOSS_V2_NONE_H
