/**
 * MSELossV2, reduction mean: the sum kernel with every tile's partials scaled by
 * scale = fl32(1/N) before they join the accumulator. The kernel never divides a total by N:
 * the result is sum over tiles of fl(fl(tile partial) * fl32(1/N)), not fl(sum / N).
 */
#ifndef MSE_LOSS_V2_MEAN_H
#define MSE_LOSS_V2_MEAN_H

#include "mse_loss_v2_sum.h"

namespace MSELossV2Kernel {
using namespace AscendC;

template <typename T>
class MSELossV2Mean : public MSELossV2Sum<T> {
public:
    __aicore__ inline void Init(GM_ADDR input, GM_ADDR target, GM_ADDR output, GM_ADDR workspace,
        const MSELossV2TilingData &tiling)
    {
        this->InitSum(input, target, output, workspace, tiling);
        this->reduceScale_ = tiling.scale;
    }
};
}  // namespace MSELossV2Kernel

#endif  // MSE_LOSS_V2_MEAN_H
