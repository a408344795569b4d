/**
 * MSELossV2, reduction sum: out = sum over i of (x[i] - y[i])^2, as the public kernel orders it.
 *
 * Per tile: d = x - y, q = d * d (fp32), then ReduceSumBisect: while n > 8, fold the top part
 * onto the bottom at h = 8 * ceil(n / 16) (a multiple of 8, so 32-byte aligned, and h >= n / 2:
 * the two ranges never overlap), so element i ends up in lane i mod 8; scale the <= 8 partials
 * by reduceScale_ (1 for sum, fl32(1/N) for mean) and add them into the 8-float accumulator
 * outLocal_ (zeroed at Init).
 *
 * Cross-core combine, once after the last tile: each core stores its accumulator to user
 * workspace bytes [32 * (coreNum + b), +32) (the first 32 * coreNum bytes stay unused, as in
 * the public kernel); a hard SyncAll (all earlier DMAs of every core done); core 0 copies the
 * 8 * coreNum partials in, sums them with the count-form ReduceSum (a pairwise tree in each
 * 64-float repeat, the repeat sums added in order), rounds to T (CAST_RINT) and stores the one
 * element with DataCopyPad. No atomics.
 *
 * Difference from the public kernel: its float path stores partials[0] straight from the
 * download buffer after enqueuing that already-dequeued VECIN buffer again (ascsim's queue
 * model refuses an EnQue of a dequeued tensor); here float, like half / bfloat16_t, moves the
 * total into the upload buffer (an exact UB->UB DataCopy of the block) and stores it from
 * there through uploadQue (V->MTE3). The bits are the same.
 */
#ifndef MSE_LOSS_V2_SUM_H
#define MSE_LOSS_V2_SUM_H

#include "mse_loss_v2_base.h"

namespace MSELossV2Kernel {
using namespace AscendC;

template <typename T>
class MSELossV2Sum : public MSELossV2Base<T> {
public:
    __aicore__ inline void Init(GM_ADDR input, GM_ADDR target, GM_ADDR output, GM_ADDR workspace,
        const MSELossV2TilingData &tiling)
    {
        InitSum(input, target, output, workspace, tiling);
    }

    __aicore__ inline void InitSum(GM_ADDR input, GM_ADDR target, GM_ADDR output, GM_ADDR workspace,
        const MSELossV2TilingData &tiling)
    {
        this->InitBase(input, target, tiling);
        this->outputGm_.SetGlobalBuffer((__gm__ T *)output);
        this->workspaceGm_.SetGlobalBuffer((__gm__ float *)workspace);
        this->pipe_.InitBuffer(this->uploadQue_, 1, BLOCK_BYTES);
        this->pipe_.InitBuffer(this->downloadQue_, 1, BLOCK_BYTES * this->coreNum_);
        this->outLocal_ = this->uploadQue_.template AllocTensor<float>();
        Duplicate(this->outLocal_, 0.0f, BLOCK_FLOATS);
        this->reduceScale_ = 1.0f;
    }

    __aicore__ inline void Process()
    {
        for (uint64_t i = 0; i < this->epochs_; i++) {
            uint64_t offset = this->gmOffset_ + i * this->tileLength_;
            this->CopyIn(offset, this->tileLength_);
            Compute(this->tileLength_);
        }
        uint64_t tailCount = this->TailCount();
        if (tailCount > 0) {
            uint64_t offset = this->gmOffset_ + this->epochs_ * this->tileLength_;
            this->CopyIn(offset, tailCount);
            Compute(tailCount);
        }
        CopyOut();
    }

    __aicore__ inline void Compute(uint64_t n)
    {
        if constexpr (std::is_same_v<T, float>) {
            LocalTensor<float> in0 = this->inQue0_.template DeQue<float>();
            LocalTensor<float> in1 = this->inQue1_.template DeQue<float>();
            Sub(in0, in0, in1, n);
            Mul(in1, in0, in0, n);
            ReduceSumBisect(in1, n);
            this->inQue0_.FreeTensor(in0);
            this->inQue1_.FreeTensor(in1);
        } else {
            LocalTensor<float> cast0 = this->castBuf0_.template Get<float>();
            LocalTensor<float> cast1 = this->castBuf1_.template Get<float>();
            Sub(cast0, cast0, cast1, n);
            Mul(cast1, cast0, cast0, n);
            ReduceSumBisect(cast1, n);
        }
    }

    __aicore__ inline void ReduceSumBisect(const LocalTensor<float> &buf, uint64_t n)
    {
        while (n > BLOCK_FLOATS) {
            uint64_t h = (n + 2 * BLOCK_FLOATS - 1) / (2 * BLOCK_FLOATS) * BLOCK_FLOATS;
            Add(buf, buf, buf[h], n - h);
            n = h;
        }
        Muls(buf, buf, this->reduceScale_, n);
        Add(this->outLocal_, buf, this->outLocal_, n);
    }

    __aicore__ inline void CopyOut()
    {
        this->uploadQue_.EnQue(this->outLocal_);
        LocalTensor<float> partial = this->uploadQue_.template DeQue<float>();
        DataCopy(this->workspaceGm_[BLOCK_FLOATS * (this->coreNum_ + this->blockIdx_)], partial, BLOCK_FLOATS);
        this->uploadQue_.FreeTensor(partial);
        SyncAll();
        if (this->blockIdx_ != 0) {
            return;
        }
        uint64_t count = BLOCK_FLOATS * this->coreNum_;
        LocalTensor<float> partials = this->downloadQue_.template AllocTensor<float>();
        DataCopy(partials, this->workspaceGm_[count], count);
        this->downloadQue_.EnQue(partials);
        partials = this->downloadQue_.template DeQue<float>();
        ReduceSum(partials, partials, partials, count);
        // partials[0] holds the total (ReduceSum's scalar write); round it into the upload buffer
        LocalTensor<T> result = this->uploadQue_.template AllocTensor<T>();
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(result, partials, BLOCK_FLOATS);
        } else {
            Cast(result, partials, RoundMode::CAST_RINT, 1);
        }
        this->downloadQue_.FreeTensor(partials);
        this->uploadQue_.EnQue(result);
        result = this->uploadQue_.template DeQue<T>();
        DataCopyExtParams copyParams{1, static_cast<uint32_t>(sizeof(T)), 0, 0, 0};
        DataCopyPad(this->outputGm_, result, copyParams);
        this->uploadQue_.FreeTensor(result);
    }
};
}  // namespace MSELossV2Kernel

#endif  // MSE_LOSS_V2_SUM_H
